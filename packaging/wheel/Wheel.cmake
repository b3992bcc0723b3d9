# Install rules of the Python wheel (TORCHIR_WHEEL=ON; scikit-build-core installs into
# site-packages/torchir_studio). The layout under that folder:
#   bin/torchir, bin/torchir-studio   run by the commands of the same name (torchir_studio._commands)
#   bin/qt.conf                       Qt takes its plugins from ../plugins, not from the system's Qt
#   lib/libtorchir_aten.so            the engine; libtorch is the environment's torch/lib, which the
#                                     commands name in TORCHIR_LIBTORCH (the loader's own mechanism)
#   lib/libgvplugin_dot_layout.so.6   Graphviz's dot layout, which DotLayouter takes from beside
#                                     itself instead of a system Graphviz's plugin folder
#   plugins/                          Qt's platform (xcb, offscreen, minimal), image format and icon plugins
#   _build.py                         the versions the package was built with
# The libraries of Qt and Graphviz themselves are brought in by auditwheel (packaging/build-wheel.sh),
# which points every RUNPATH at its torchir_studio.libs.
install(TARGETS torchir torchir-studio RUNTIME DESTINATION bin)
install(TARGETS torchir_aten LIBRARY DESTINATION lib)
set_target_properties(torchir torchir-studio PROPERTIES INSTALL_RPATH "$ORIGIN/../lib")
# The environment's torch/lib for ldd and for a start without TORCHIR_LIBTORCH; the commands name it too.
set_target_properties(torchir_aten PROPERTIES INSTALL_RPATH "$ORIGIN;$ORIGIN/../../torch/lib")
install(FILES ${CMAKE_CURRENT_LIST_DIR}/qt.conf DESTINATION bin)

# Graphviz's plugin folder, as pkg-config names it for the libgvc we link.
pkg_get_variable(_gvc_libdir libgvc libdir)
# The file itself, under the name DotLayouter opens: a wheel holds no symbolic links.
file(REAL_PATH "${_gvc_libdir}/graphviz/libgvplugin_dot_layout.so.6" _dot_plugin)
install(FILES "${_dot_plugin}" DESTINATION lib RENAME libgvplugin_dot_layout.so.6)

# Qt's plugins: platforms (a desktop's xcb; offscreen and minimal for none), the SVG and raster
# image formats, the SVG icon engine, xcb's GL integration.
foreach(plugin Qt6::QXcbIntegrationPlugin Qt6::QOffscreenIntegrationPlugin Qt6::QMinimalIntegrationPlugin
               Qt6::QXcbGlxIntegrationPlugin Qt6::QSvgPlugin Qt6::QSvgIconPlugin Qt6::QGifPlugin Qt6::QComposePlatformInputContextPlugin
               Qt6::QJpegPlugin Qt6::QICOPlugin)
  # Debian's Qt declares its plugins' targets but loads none of them with Qt6Gui
  string(REPLACE "Qt6::" "" _name ${plugin})
  if(NOT TARGET ${plugin})
    include("${Qt6Gui_DIR}/Qt6${_name}Targets.cmake")
  endif()
  get_target_property(_type ${plugin} QT_PLUGIN_TYPE)
  install(FILES $<TARGET_FILE:${plugin}> DESTINATION plugins/${_type})
endforeach()

configure_file(${CMAKE_CURRENT_LIST_DIR}/_build.py.in ${CMAKE_CURRENT_BINARY_DIR}/_build.py @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/_build.py DESTINATION .)

# The demo program torchir-studio opens when given no file (../share/torchir-studio/demo from bin/).
if(TORCHIR_FIXTURES_DIR AND EXISTS "${TORCHIR_FIXTURES_DIR}/demo/demo.pt2")
  install(FILES "${TORCHIR_FIXTURES_DIR}/demo/demo.pt2" DESTINATION share/torchir-studio/demo)
endif()
