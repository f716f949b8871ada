#pragma once

namespace clusterscope::engine {
class Catalog;
class PriceBook;
struct Scenario;
}
namespace clusterscope::views {
class BomView;
class FabricView;
}

namespace clusterscope::app {

/// Builds the scenario's fabric with the engine (builder, physical layout, bill of materials) and
/// shows it in the 3D view and the BOM tab; a scenario the engine refuses shows its message instead.
void showFabric(views::FabricView& view, views::BomView& bomView, const engine::Scenario& scenario,
    const engine::Catalog& catalog, const engine::PriceBook& prices);

} // namespace clusterscope::app
