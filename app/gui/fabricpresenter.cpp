#include "app/gui/fabricpresenter.h"

#include "engine/fabric/fabricbom.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/fabriclayout.h"
#include "engine/scenario/scenario.h"
#include "views/bom/bomview.h"
#include "views/fabric/fabricscenebuilder.h"
#include "views/fabric/fabricview.h"

#include <QCoreApplication>

namespace clusterscope::app {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("FabricPresenter", text); }
}

void showFabric(views::FabricView& view, views::BomView& bomView, const engine::Scenario& scenario,
    const engine::Catalog& catalog, const engine::PriceBook& prices)
{
    auto design = engine::buildFabric(scenario, catalog);
    if (!design) {
        const QString message = tr("This scenario's fabric cannot be built:\n%1").arg(QString::fromStdString(design.message()));
        view.setEmptyState(message);
        bomView.setEmptyState(message);
        return;
    }
    const engine::LayoutSpec layout = scenario.layout ? *scenario.layout : engine::defaultLayout(*design);
    engine::Status laidOut = engine::layOutFabric(*design, layout, catalog);

    const auto perTier = design->graph.switchesPerTier();
    std::string title = scenario.name + " — " + std::to_string(design->hosts) + " servers";
    static const char* names[] = { " leaf", " spine", " core" };
    for (std::size_t t = 0; t < perTier.size() && t < 3; ++t)
        title += ", " + std::to_string(perTier[t]) + names[t];
    view.setScene(views::sceneFromGraph(design->graph, views::SceneLayout::Tiers, {}, title));

    if (!laidOut) {
        bomView.setEmptyState(tr("The fabric cannot be laid out:\n%1").arg(QString::fromStdString(laidOut.message())));
        return;
    }
    auto bom = engine::computeBom(*design, catalog, prices);
    if (!bom) {
        bomView.setEmptyState(tr("No bill of materials:\n%1").arg(QString::fromStdString(bom.message())));
        return;
    }
    bomView.setBom(*bom, QString::fromStdString(scenario.name));
}

} // namespace clusterscope::app
