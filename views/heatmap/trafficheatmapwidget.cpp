#include "views/heatmap/trafficheatmapwidget.h"

#include "engine/scenario/scenario.h"
#include "views/heatmap/trafficheatmapcanvas.h"
#include "views/widgets/emptystatewidget.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace clusterscope::views {

TrafficHeatmapGeometry heatmapGeometryFor(const engine::Scenario& scenario, const engine::ClusterGeometry& g)
{
    TrafficHeatmapGeometry out;
    out.gpusPerNode = std::max(1, scenario.cluster.gpusPerNode);
    out.nodesPerRack
        = std::max(1, scenario.layout ? scenario.layout->nodesPerRack : engine::LayoutSpec {}.nodesPerRack);
    out.racksPerPod = std::max(1, (g.nodesPerPod + out.nodesPerRack - 1) / out.nodesPerRack);
    return out;
}

TrafficHeatmapGeometry heatmapGeometryFor(const engine::ClusterGeometry& g)
{
    TrafficHeatmapGeometry out;
    out.gpusPerNode = std::max(1, g.gpusPerNode);
    out.nodesPerRack = std::max(1, engine::LayoutSpec {}.nodesPerRack);
    out.racksPerPod = std::max(1, (g.nodesPerPod + out.nodesPerRack - 1) / out.nodesPerRack);
    return out;
}

TrafficHeatmapWidget::TrafficHeatmapWidget(QWidget* parent)
    : QWidget(parent)
    , m_dimension(new QComboBox(this))
    , m_linkClass(new QComboBox(this))
    , m_reset(new QToolButton(this))
    , m_stack(new QStackedWidget(this))
    , m_canvas(new TrafficHeatmapCanvas(this))
    , m_empty(new EmptyStateWidget(QStringLiteral("GPU-pair traffic"),
          QStringLiteral("Evaluate a strategy or import a run to see which GPUs exchange how many bytes."), this))
{
    using engine::TrafficDimension;
    const auto bit = [](TrafficDimension d) { return 1u << static_cast<int>(d); };
    m_dimension->addItem(QStringLiteral("All dimensions"), engine::kAllTrafficDimensionsMask);
    m_dimension->addItem(QStringLiteral("DP (data parallel)"), bit(TrafficDimension::DP));
    m_dimension->addItem(QStringLiteral("TP (tensor parallel)"), bit(TrafficDimension::TP));
    m_dimension->addItem(QStringLiteral("PP (pipeline parallel)"), bit(TrafficDimension::PP));
    m_dimension->addItem(QStringLiteral("CP (context parallel)"), bit(TrafficDimension::CP));
    m_dimension->addItem(QStringLiteral("EP (expert parallel)"), bit(TrafficDimension::EP));
    m_dimension->addItem(QStringLiteral("Unattributed (measured)"), 1u << engine::kTrafficUnknownDimension);
    m_dimension->setToolTip(QStringLiteral("Show only the traffic of one parallelism dimension"));
    m_linkClass->addItem(QStringLiteral("All link classes"), engine::kAllLinkClassesMask);
    m_linkClass->addItem(QStringLiteral("Scale-up (NVLink)"), 1u << 0);
    m_linkClass->addItem(QStringLiteral("Leaf (one leaf switch)"), 1u << 1);
    m_linkClass->addItem(QStringLiteral("Spine"), 1u << 2);
    m_linkClass->addItem(QStringLiteral("Core"), 1u << 3);
    m_linkClass->setToolTip(QStringLiteral("Show only pairs whose traffic crosses this tier at the highest"));
    m_reset->setText(QStringLiteral("Reset view"));
    m_reset->setToolTip(QStringLiteral("Show all GPUs again (double-click, 0 or Home)"));

    // The combos may shrink (eliding their text) rather than widen the window.
    for (QComboBox* combo : { m_dimension, m_linkClass }) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }
    // The combos' items name what they filter ("All dimensions", "Scale-up (NVLink)"): no labels
    // beside them, so that the bar fits a narrow pane (the Runs tab on a laptop).
    m_dimension->setAccessibleName(QStringLiteral("Dimension"));
    m_linkClass->setAccessibleName(QStringLiteral("Link class"));
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_dimension);
    bar->addSpacing(8);
    bar->addWidget(m_linkClass);
    bar->addStretch(1);
    bar->addWidget(m_reset);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_canvas);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_stack, 1);

    connect(m_dimension, &QComboBox::currentIndexChanged, this, &TrafficHeatmapWidget::applyFilter);
    connect(m_linkClass, &QComboBox::currentIndexChanged, this, &TrafficHeatmapWidget::applyFilter);
    connect(m_reset, &QToolButton::clicked, this, &TrafficHeatmapWidget::resetView);
    connect(m_canvas, &TrafficHeatmapCanvas::viewChanged, this,
        [this] { m_reset->setEnabled(m_canvas->source() && !m_canvas->viewport().isReset()); });
    m_reset->setEnabled(false);
}

void TrafficHeatmapWidget::setSource(
    std::shared_ptr<const engine::TrafficSource> source, const TrafficHeatmapGeometry& geometry)
{
    const bool has = source && source->gpus() > 0;
    m_canvas->setSource(std::move(source), geometry);
    m_stack->setCurrentWidget(has ? static_cast<QWidget*>(m_canvas) : m_empty);
    m_dimension->setEnabled(has);
    m_linkClass->setEnabled(has);
}

void TrafficHeatmapWidget::syncCombo(QComboBox* combo, unsigned mask)
{
    const QSignalBlocker block(combo);
    combo->setCurrentIndex(combo->findData(mask)); // -1 (blank) for a combination the list lacks
}

void TrafficHeatmapWidget::setDimensionFilter(unsigned mask)
{
    syncCombo(m_dimension, mask & engine::kAllTrafficDimensionsMask);
    m_canvas->setFilter({ mask & engine::kAllTrafficDimensionsMask, m_canvas->filter().linkClassMask });
}

void TrafficHeatmapWidget::setLinkClassFilter(unsigned mask)
{
    syncCombo(m_linkClass, mask & engine::kAllLinkClassesMask);
    m_canvas->setFilter({ m_canvas->filter().dimensionMask, mask & engine::kAllLinkClassesMask });
}

unsigned TrafficHeatmapWidget::dimensionFilter() const { return m_canvas->filter().dimensionMask; }
unsigned TrafficHeatmapWidget::linkClassFilter() const { return m_canvas->filter().linkClassMask; }

void TrafficHeatmapWidget::applyFilter()
{
    engine::TrafficFilter f = m_canvas->filter();
    if (m_dimension->currentIndex() >= 0)
        f.dimensionMask = m_dimension->currentData().toUInt();
    if (m_linkClass->currentIndex() >= 0)
        f.linkClassMask = m_linkClass->currentData().toUInt();
    m_canvas->setFilter(f);
}

void TrafficHeatmapWidget::setEmptyState(const QString& text) { m_empty->setText(text); }
void TrafficHeatmapWidget::setTitle(const QString& title) { m_canvas->setTitle(title); }
void TrafficHeatmapWidget::resetView() { m_canvas->resetView(); }
bool TrafficHeatmapWidget::isShowingEmptyState() const { return m_stack->currentWidget() == m_empty; }

} // namespace clusterscope::views
