# Installs the example configuration as /etc/judged/judged.yaml (always under
# /etc, whatever the prefix: judged and judgectl look there), unless one is
# there already: an admin's edited file is never overwritten, the new example
# goes beside it as judged.yaml.example. The Debian package marks the file a
# conffile, so dpkg asks before replacing an edited one.
set(_etc "$ENV{DESTDIR}/etc/judged")
set(_example "${JUDGED_PACKAGING_SRC}/judged.yaml")
file(MAKE_DIRECTORY "${_etc}")
if(EXISTS "${_etc}/judged.yaml")
  file(READ "${_etc}/judged.yaml" _old)
  file(READ "${_example}" _new)
  if(NOT _old STREQUAL _new)
    message(STATUS "Keeping: ${_etc}/judged.yaml; the example goes to judged.yaml.example")
    file(COPY_FILE "${_example}" "${_etc}/judged.yaml.example")
    return()
  endif()
endif()
message(STATUS "Installing: ${_etc}/judged.yaml")
file(COPY_FILE "${_example}" "${_etc}/judged.yaml")
list(APPEND CMAKE_INSTALL_MANIFEST_FILES "/etc/judged/judged.yaml")
