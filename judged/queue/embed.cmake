# Turns judged.lua into a C array at build time, so the .lua stays the source
# of truth and judged needs no file at run time (build tree or installed).
# cmake -DIN=judged.lua -DOUT=judged_lua.c [-DNAME=symbol] -P embed.cmake
# (judge-api embeds its openapi.yaml the same way)
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
if(NOT NAME)
  set(NAME queue_library_lua)
endif()
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp" "/* generated from ${src} by embed.cmake; do not edit */\nconst char ${NAME}[] = {\n${hex}0x00};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
