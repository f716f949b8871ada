#pragma once

namespace clusterscope::engine {
class Catalog;
struct Scenario;
}
namespace clusterscope::views {
class FabricView;
}

namespace clusterscope::app {

/// Builds the scenario's fabric with the engine and shows it in `view`; a scenario the builder
/// refuses shows the builder's message instead of a picture.
void showFabric(views::FabricView& view, const engine::Scenario& scenario, const engine::Catalog& catalog);

} // namespace clusterscope::app
