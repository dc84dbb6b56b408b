# Writes the systemd units with the executables' paths as installed now:
# CMAKE_INSTALL_PREFIX is the prefix of this install (cmake --install
# --prefix P, or /usr when CPack builds the Debian package), not the one
# the build was configured with.
set(BINDIR "${CMAKE_INSTALL_PREFIX}/${JUDGED_BINDIR}")
foreach(_unit judged judge-sandbox judge-api)
  configure_file("${JUDGED_PACKAGING_SRC}/${_unit}.service.in"
                 "${JUDGED_PACKAGING_BIN}/units/${_unit}.service" @ONLY)
endforeach()
