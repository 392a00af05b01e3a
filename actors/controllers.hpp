#pragma once
// What nvcre-manager watches and reconciles: the kinds cached, with the
// reference's scoping (Nodes labelled nvidia.com/gpu.present=true, our ConfigMaps only), and the
// four controllers with their pure reconcile functions adapted to the shell's call shape.
#include "actors/manager.hpp"

#include <vector>

namespace nvcre::actors {

std::vector<WatchSpec> nvcre_watches();
std::vector<ControllerSpec> nvcre_controllers();
// The measurements' gauges (measurement/measurement_gauges.hpp), by kind.
decltype(ManagerOptions::gauge_projections) nvcre_gauge_projections();

}  // namespace nvcre::actors
