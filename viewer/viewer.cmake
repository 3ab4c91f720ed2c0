# SPDX-License-Identifier: Apache-2.0
# Included by the top-level CMakeLists.txt: the rule that makes viewer_bundle.c (the player
# bundle for gradyn view, built from viewer/ with npm and embedded in the gradyn program).
# GDN_VIEWER_BUNDLE_C names the generated source for the gradyn target.
option(GDN_VIEWER "build gradyn view's player (needs npm and the npm registry at build time)" ON)
find_program(GDN_NPM npm)
find_program(GDN_NODE NAMES node nodejs)
set(GDN_VIEWER_NPM ${GDN_NPM})
if(NOT GDN_VIEWER)
  set(GDN_VIEWER_NPM "")
  message(STATUS "viewer: GDN_VIEWER is OFF: 'gradyn view' is built without its player and "
                 "refuses to run")
elseif(NOT GDN_NPM OR NOT GDN_NODE)
  message(WARNING "viewer: npm or node not found: 'gradyn view' will be built without its "
                  "player and refuse to run (Debian: apt-get install npm, then reconfigure)")
endif()

set(GDN_VIEWER_BUNDLE_C ${CMAKE_BINARY_DIR}/viewer/viewer_bundle.c)
set(GDN_VIEWER_STAMP ${CMAKE_BINARY_DIR}/viewer/bundle.stamp)
file(GLOB GDN_VIEWER_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/viewer/src/*)
# the stamp is written only on success, so a failed (offline) build is retried by the next one;
# the C file is rewritten only when its text changes (no needless recompiles)
add_custom_command(
  OUTPUT ${GDN_VIEWER_STAMP}
  BYPRODUCTS ${GDN_VIEWER_BUNDLE_C}
  COMMAND ${CMAKE_COMMAND} -DNPM=${GDN_VIEWER_NPM} -DNODE=${GDN_NODE} -DSRC=${CMAKE_SOURCE_DIR}/viewer
          -DWORK=${CMAKE_BINARY_DIR}/viewer/npm -DOUT=${GDN_VIEWER_BUNDLE_C}
          -DSTAMP=${GDN_VIEWER_STAMP} -P ${CMAKE_SOURCE_DIR}/viewer/bundle.cmake
  DEPENDS ${CMAKE_SOURCE_DIR}/viewer/package.json ${CMAKE_SOURCE_DIR}/viewer/package-lock.json
          ${CMAKE_SOURCE_DIR}/viewer/bundle.cmake ${CMAKE_SOURCE_DIR}/viewer/embed.mjs
          ${GDN_VIEWER_SOURCES}
  COMMENT "viewer: building the player bundle (three.js) for gradyn view"
  VERBATIM)
add_custom_target(gradyn_viewer_bundle DEPENDS ${GDN_VIEWER_STAMP})
