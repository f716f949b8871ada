#include "app/gui/fabricpresenter.h"

#include "engine/fabric/fabricbuilder.h"
#include "engine/scenario/scenario.h"
#include "views/fabric/fabricscenebuilder.h"
#include "views/fabric/fabricview.h"

#include <QCoreApplication>

namespace clusterscope::app {

void showFabric(views::FabricView& view, const engine::Scenario& scenario, const engine::Catalog& catalog)
{
    auto design = engine::buildFabric(scenario, catalog);
    if (!design) {
        view.setEmptyState(QCoreApplication::translate("FabricPresenter", "This scenario's fabric cannot be built:\n%1")
                               .arg(QString::fromStdString(design.message())));
        return;
    }
    const auto perTier = design->graph.switchesPerTier();
    std::string title = scenario.name + " — " + std::to_string(design->hosts) + " servers";
    static const char* names[] = { " leaf", " spine", " core" };
    for (std::size_t t = 0; t < perTier.size() && t < 3; ++t)
        title += ", " + std::to_string(perTier[t]) + names[t];
    view.setScene(views::sceneFromGraph(design->graph, views::SceneLayout::Tiers, {}, title));
}

} // namespace clusterscope::app
