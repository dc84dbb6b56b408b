# Turns judged.lua into a C array at build time, so the .lua stays the source
# of truth and judged needs no file at run time (build tree or installed).
# cmake -DIN=judged.lua -DOUT=judged_lua.c [-DNAME=symbol] [-DVERSION_NAME=symbol] -P embed.cmake
# (judge-api embeds its openapi.yaml the same way). With VERSION_NAME, the
# file's `local VERSION = N` line also becomes `const int VERSION_NAME = N;`:
# the C side compares Redis' library version with the text it would load, so
# the two must never be written down twice (a bumped .lua with a stale C
# constant made judged refuse the library its own judgectl had just loaded).
file(READ "${IN}" hex HEX)
set(version_c "")
if(VERSION_NAME)
  file(STRINGS "${IN}" vline REGEX "^local VERSION = [0-9]+$")
  list(LENGTH vline nv)
  if(NOT nv EQUAL 1)
    message(FATAL_ERROR "${IN}: wants exactly one line 'local VERSION = N', found ${nv}")
  endif()
  string(REGEX REPLACE "^local VERSION = " "" v "${vline}")
  set(version_c "const int ${VERSION_NAME} = ${v};\n")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" hex "${hex}")
if(NOT NAME)
  set(NAME queue_library_lua)
endif()
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp" "/* generated from ${src} by embed.cmake; do not edit */\n${version_c}const char ${NAME}[] = {\n${hex}0x00};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
