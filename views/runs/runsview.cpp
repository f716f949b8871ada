#include "views/runs/runsview.h"

#include "engine/run/collectivefold.h"

#include "views/runs/collectivetablemodel.h"
#include "views/runs/nicoverlay.h"
#include "views/runs/runbreakdownchart.h"
#include "views/runs/runlistmodel.h"
#include "views/runs/runpalette.h"
#include "views/runs/stragglertablemodel.h"
#include "views/runs/timelinedata.h"
#include "views/runs/timelinewidget.h"
#include "views/widgets/emptystatewidget.h"

#include <QAction>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollBar>
#include <QShowEvent>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace clusterscope::views {

namespace {
    QTableView* makeTable(QWidget* parent)
    {
        auto* table = new QTableView(parent);
        table->setAlternatingRowColors(true);
        table->setSelectionBehavior(QAbstractItemView::SelectRows);
        table->setSelectionMode(QAbstractItemView::SingleSelection);
        table->verticalHeader()->hide();
        table->horizontalHeader()->setStretchLastSection(true);
        table->setEditTriggers(QAbstractItemView::NoEditTriggers);
        return table;
    }

    QWidget* titled(const QString& title, QWidget* body, QWidget* parent, QWidget* extra = nullptr)
    {
        auto* box = new QWidget(parent);
        auto* layout = new QVBoxLayout(box);
        layout->setContentsMargins(0, 0, 0, 0);
        auto* header = new QHBoxLayout;
        auto* label = new QLabel(title, box);
        QFont bold = label->font();
        bold.setBold(true);
        label->setFont(bold);
        header->addWidget(label, 1);
        if (extra)
            header->addWidget(extra);
        layout->addLayout(header);
        layout->addWidget(body, 1);
        return box;
    }

    // The timeline's colour key: a swatch per activity kind.
    QLabel* timelineLegend(QWidget* parent)
    {
        QString html;
        for (auto kind : { engine::GpuActivityKind::Compute, engine::GpuActivityKind::Communication,
                 engine::GpuActivityKind::Memcpy }) {
            const QString name = kind == engine::GpuActivityKind::Compute ? RunsView::tr("compute")
                : kind == engine::GpuActivityKind::Communication          ? RunsView::tr("communication")
                                                                          : RunsView::tr("memcpy/memset");
            html += QStringLiteral(
                "<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp;&nbsp;")
                        .arg(RunPalette::activityColor(kind).name(), name);
        }
        html += RunsView::tr(
            "— opacity shows how busy each pixel column is; wheel zooms, drag pans, Shift+wheel scrolls ranks, "
            "double-click shows all");
        auto* label = new QLabel(html, parent);
        label->setTextFormat(Qt::RichText);
        label->setForegroundRole(QPalette::PlaceholderText);
        label->setWordWrap(true);
        return label;
    }
}

RunsView::RunsView(QWidget* parent)
    : QWidget(parent)
    , m_runs(new RunListModel(this))
    , m_runTable(makeTable(this))
    , m_stragglers(new StragglerTableModel(this))
    , m_stragglerTable(makeTable(this))
    , m_collectives(new CollectiveTableModel(this))
    , m_collectiveProxy(new QSortFilterProxyModel(this))
    , m_collectiveTable(makeTable(this))
    , m_chart(new RunBreakdownChart(this))
    , m_stepSelector(new QComboBox(this))
    , m_timeline(new TimelineWidget(this))
    , m_runActions(new QHBoxLayout)
    , m_heatmapSlot(new QWidget(this))
    , m_heatmapLayout(new QVBoxLayout(m_heatmapSlot))
    , m_heatmapPlaceholder(new QLabel(tr("Measured traffic heatmap"), m_heatmapSlot))
    , m_title(new QLabel(tr("Runs"), this))
    , m_caption(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_importStatus(new QLabel(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_import(new QPushButton(tr("Import traces…"), this))
    , m_delete(new QPushButton(tr("Delete"), this))
    , m_stack(new QStackedWidget(this))
    , m_empty(
          new EmptyStateWidget(tr("Runs"), tr("Import profiler traces (menu, button or drop a folder here)."), this))
    , m_content(new QWidget(this))
{
    setAcceptDrops(true);
    auto* layout = new QVBoxLayout(this);

    // Header: title, caption, import progress, Import button.
    auto* header = new QHBoxLayout;
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_title->setFont(bold);
    // Title above caption, both wrapping: a long run name must not widen the window.
    auto* titles = new QVBoxLayout;
    m_title->setWordWrap(true);
    titles->addWidget(m_title);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_caption->setWordWrap(true);
    m_importStatus->setWordWrap(true);
    titles->addWidget(m_caption);
    header->addLayout(titles, 1);
    m_progress->setRange(0, 1000);
    m_progress->setFormat(tr("Importing… %p%"));
    m_progress->setMinimumWidth(220);
    m_progress->setMaximumWidth(320);
    header->addWidget(m_importStatus);
    header->addWidget(m_progress);
    header->addWidget(m_cancel);
    header->addWidget(m_import);
    layout->addLayout(header);
    connect(m_cancel, &QPushButton::clicked, this, &RunsView::cancelImportRequested);
    connect(m_import, &QPushButton::clicked, this, &RunsView::importRequested);

    // Left: the stored runs.
    m_runTable->setModel(m_runs);
    m_runTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* deleteAction = new QAction(tr("Delete run"), m_runTable);
    deleteAction->setShortcut(QKeySequence::Delete);
    deleteAction->setShortcutContext(Qt::WidgetShortcut);
    m_runTable->addAction(deleteAction);
    m_runTable->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto requestDelete = [this] {
        if (const std::int64_t id = currentRunId())
            Q_EMIT deleteRequested(id);
    };
    connect(deleteAction, &QAction::triggered, this, requestDelete);
    connect(m_delete, &QPushButton::clicked, this, requestDelete);
    connect(
        m_runTable->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsView::onRunSelectionChanged);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(titled(tr("Stored runs"), m_runTable, left), 1);
    leftLayout->addWidget(m_delete, 0, Qt::AlignRight);

    // Right: the run shown.
    m_stepSelector->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    connect(m_stepSelector, &QComboBox::currentIndexChanged, this, &RunsView::onStepChanged);
    m_heatmapLayout->setContentsMargins(0, 0, 0, 0);
    m_heatmapPlaceholder->setAlignment(Qt::AlignCenter);
    m_heatmapPlaceholder->setForegroundRole(QPalette::PlaceholderText);
    m_heatmapPlaceholder->setFrameShape(QFrame::StyledPanel);
    m_heatmapPlaceholder->setText(tr("Measured traffic heatmap\n(bytes sent between ranks)"));
    m_heatmapLayout->addWidget(m_heatmapPlaceholder);
    m_heatmapSlot->setMinimumSize(200, 200);
    // The run's actions: the step shown first, then what the application adds (addRunAction).
    auto* stepLabel = new QLabel(tr("Breakdown of"), m_content);
    stepLabel->setBuddy(m_stepSelector);
    m_runActions->setContentsMargins(0, 0, 0, 0);
    // The stored-runs pane can be hidden; on a narrow window (a laptop) it starts hidden while a run
    // is shown, so the chart and the heatmap get its width.
    m_runsToggle = new QToolButton(m_content);
    m_runsToggle->setText(tr("Stored runs"));
    m_runsToggle->setCheckable(true);
    m_runsToggle->setChecked(true);
    m_runsToggle->setToolTip(tr("Show or hide the list of the project's stored runs"));
    m_runActions->addWidget(m_runsToggle);
    m_runActions->addSpacing(8);
    m_runActions->addWidget(stepLabel);
    m_runActions->addWidget(m_stepSelector);
    m_runActions->addStretch(1);
    auto* top = new QSplitter(Qt::Horizontal, m_content);
    top->addWidget(m_chart);
    top->addWidget(m_heatmapSlot);
    top->setStretchFactor(0, 9);
    top->setStretchFactor(1, 11);
    // Title and plot with the legend beside it (RunBreakdownChart places it on a short pane).
    m_chart->setMinimumHeight(190);

    m_stragglerTable->setModel(m_stragglers);
    m_collectiveProxy->setSourceModel(m_collectives);
    m_collectiveProxy->setSortRole(CollectiveTableModel::kSortRole);
    m_collectiveTable->setModel(m_collectiveProxy);
    m_collectiveTable->setSortingEnabled(true);
    m_collectiveTable->sortByColumn(CollectiveTableModel::TotalWait, Qt::DescendingOrder);
    auto* tables = new QSplitter(Qt::Horizontal, m_content);
    m_tablesBox = tables;
    tables->addWidget(titled(tr("Stragglers (ranks the others waited for)"), m_stragglerTable, tables));
    tables->addWidget(titled(tr("Collectives"), m_collectiveTable, tables));
    tables->setStretchFactor(0, 2);
    tables->setStretchFactor(1, 5);

    auto* timelineBox = m_timelineBox = new QWidget(m_content);
    auto* timelineLayout = new QVBoxLayout(timelineBox);
    timelineLayout->setContentsMargins(0, 0, 0, 0);
    auto* timelineHeader = new QLabel(tr("Timeline (ranks × streams, aligned clocks)"), timelineBox);
    QFont timelineFont = timelineHeader->font();
    timelineFont.setBold(true);
    timelineHeader->setFont(timelineFont);
    // The hosts' NIC throughput under the lanes, on the same time axis (a strip that can be
    // collapsed; two text lines high while it only says why there is nothing to draw).
    m_nicOverlay = new NicOverlay(timelineBox);
    m_nicToggle = new QToolButton(timelineBox);
    m_nicToggle->setText(tr("NIC throughput"));
    m_nicToggle->setCheckable(true);
    m_nicToggle->setChecked(true);
    m_nicToggle->setAutoRaise(true);
    // No taller than the title beside it: the timeline keeps its room on a small screen.
    m_nicToggle->setMaximumHeight(timelineHeader->sizeHint().height() + 2);
    m_nicToggle->setToolTip(tr("Show or hide the hosts' NIC throughput (from the Live tab's telemetry source) "
                               "under the timeline"));
    // The lines' minimum height comes out of the timeline's: the timeline box (and so the
    // window) needs no more room with the strip than without it.
    auto fitTimelineMinimum = [this, timelineMinimum = m_timeline->minimumHeight()] {
        const bool lines = m_nicToggle->isChecked() && m_nicOverlay->hasLines();
        m_timeline->setMinimumHeight(timelineMinimum - (lines ? NicOverlay::kMinimumLinesHeight : 0));
    };
    connect(m_nicToggle, &QToolButton::toggled, this, [this, fitTimelineMinimum](bool shown) {
        m_nicOverlay->setVisible(shown);
        fitTimelineMinimum();
    });
    connect(m_nicOverlay, &NicOverlay::linesShownChanged, this, fitTimelineMinimum);
    auto* timelineTitle = new QHBoxLayout;
    timelineTitle->addWidget(timelineHeader, 1);
    timelineTitle->addWidget(m_nicToggle);
    timelineLayout->addLayout(timelineTitle);
    timelineLayout->addWidget(m_timeline, 1);
    timelineLayout->addWidget(m_nicOverlay);
    timelineLayout->addWidget(timelineLegend(timelineBox));
    connect(m_timeline, &TimelineWidget::viewChanged, this, &RunsView::syncNicAxis);
    connect(m_stragglerTable->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &RunsView::highlightSelectedRankHost);

    // A tall tab stacks the three panes; a short one (setPanesTabbed) makes each a tab.
    auto* vertical = m_vertical = new QSplitter(Qt::Vertical, m_content);
    vertical->setChildrenCollapsible(false);
    m_paneTabs = new QTabWidget(m_content);
    m_paneTabs->setDocumentMode(true);
    m_paneTabs->hide();
    auto* contentLayout = new QVBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(m_runActions);
    contentLayout->addWidget(vertical, 1);
    contentLayout->addWidget(m_paneTabs, 1);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_content);
    auto* main = new QSplitter(Qt::Horizontal, this);
    main->addWidget(left);
    main->addWidget(m_stack);
    main->setStretchFactor(0, 1);
    main->setStretchFactor(1, 5);
    main->setSizes({ 320, 1280 });
    left->setMinimumWidth(150);
    main->setChildrenCollapsible(false);
    m_left = left;
    m_top = top;
    // Tabbed until the tab is known to be tall: the stacked rows' minimums must never make a
    // laptop's window taller than its screen.
    m_short = false;
    setPanesTabbed(true);
    connect(m_runsToggle, &QToolButton::clicked, this, [this](bool shown) {
        m_runsPaneChosen = true;
        m_left->setVisible(shown);
    });
    layout->addWidget(main, 1);
    connect(m_paneTabs, &QTabWidget::currentChanged, this, [this] {
        if (!m_topSized)
            QTimer::singleShot(0, this, &RunsView::splitTop);
    });

    setImporting(false);
    onRunSelectionChanged();
}

RunsView::~RunsView() = default;

void RunsView::setRuns(const std::vector<engine::StoredRunSummary>& runs)
{
    const std::int64_t current = currentRunId();
    m_silentSelection = true;
    m_runs->setRuns(runs);
    m_silentSelection = false;
    setCurrentRunId(m_runs->rowOf(current) >= 0 ? current : 0);
    m_runTable->resizeColumnsToContents();
    fitToWidth();
}

void RunsView::setCurrentRunId(std::int64_t id)
{
    m_silentSelection = true;
    const int row = m_runs->rowOf(id);
    if (row >= 0)
        m_runTable->selectRow(row);
    else
        m_runTable->clearSelection();
    m_silentSelection = false;
    m_delete->setEnabled(currentRunId() != 0);
}

std::int64_t RunsView::currentRunId() const
{
    const QModelIndexList rows = m_runTable->selectionModel()->selectedRows();
    return rows.isEmpty() ? 0 : rows.front().data(RunListModel::kRunIdRole).toLongLong();
}

void RunsView::onRunSelectionChanged()
{
    const std::int64_t id = currentRunId();
    m_delete->setEnabled(id != 0);
    if (!m_silentSelection && id != 0)
        Q_EMIT runSelected(id);
}

void RunsView::showRun(const engine::RunAnalysis& analysis, const engine::Run* events, const QString& title)
{
    m_steps = analysis.steps;
    {
        const QSignalBlocker blocker(m_stepSelector);
        m_stepSelector->clear();
        m_stepSelector->addItem(tr("Mean of all steps"));
        for (const auto& s : m_steps)
            m_stepSelector->addItem(tr("Step %1").arg(s.step));
        m_stepSelector->setEnabled(m_steps.size() > 1);
    }
    m_chart->setSteps(m_steps, m_steps.size() == 1 ? 0 : -1);
    if (m_steps.size() == 1)
        m_stepSelector->setCurrentIndex(1);
    m_stragglers->setStragglers(analysis.stragglers);
    m_stragglerTable->resizeColumnsToContents();
    m_collectives->setCollectives(analysis.collectives);
    m_collectiveTable->resizeColumnsToContents();
    // Without events (a run read back from the project) the timeline is hidden: its room goes to
    // the chart, the heatmap and the tables, and the caption says how to get it.
    const bool hasEvents = events && !events->ranks.empty();
    m_hasEvents = hasEvents;
    showTimelinePane();
    if (hasEvents) {
        m_timeline->setData(TimelineData::fromRun(*events, analysis.clockOffsetNs));
    } else {
        m_timeline->setData(nullptr);
        m_timeline->setPlaceholderText(
            tr("The events are not stored in the project: import the traces again to see the "
               "timeline."));
    }
    const QLocale l;
    const int ranks = int(analysis.clockOffsetNs.size());
    m_title->setText(title.isEmpty() ? tr("Runs") : tr("Run: %1").arg(title));
    QString caption
        = tr("%Ln rank(s), %1 step(s), %2 collectives", nullptr, ranks)
              .arg(l.toString(qlonglong(m_steps.size())), l.toString(qlonglong(analysis.collectives.size())));
    // The tail beside the mean: a synchronous step lasts as long as its slowest rank.
    const engine::LatencyStats stepTail = engine::stepDurationStats(analysis);
    if (stepTail.count > 0)
        caption += tr("; step time mean %1 ms, p50 %2, p99 %3, max %4 ms")
                       .arg(l.toString(stepTail.mean * 1e3, 'f', 2), l.toString(stepTail.p50 * 1e3, 'f', 2),
                           l.toString(stepTail.p99 * 1e3, 'f', 2), l.toString(stepTail.max * 1e3, 'f', 2));
    if (!analysis.stragglers.empty())
        caption += tr("; slowest to arrive: rank %1").arg(analysis.stragglers.front().rank);
    if (events)
        caption += tr("; %1 GPU events")
                       .arg(l.toString(qulonglong(m_timeline->data() ? m_timeline->data()->eventCount() : 0)));
    else
        caption += tr(". The project keeps no GPU events: import the traces again for the timeline.");
    m_caption->setText(caption);
    m_stack->setCurrentWidget(m_content);
    fitToWidth();
    if (hasEvents)
        Q_EMIT eventsShown(*events);
    else
        Q_EMIT eventsCleared();
}

void RunsView::syncNicAxis()
{
    // The overlay sits in the timeline's column with the same left edge: the lanes' x-range maps
    // across unchanged, so one instant has one x in both.
    const QRect lanes = m_timeline->lanesRect();
    const int dx
        = m_timeline->mapTo(m_timelineBox, QPoint(0, 0)).x() - m_nicOverlay->mapTo(m_timelineBox, QPoint(0, 0)).x();
    m_nicOverlay->setTimeAxis(
        m_timeline->viewStartNs(), m_timeline->viewEndNs(), lanes.left() + dx, lanes.left() + dx + lanes.width());
}

void RunsView::setRankHosts(std::vector<QString> hosts)
{
    m_rankHosts = std::move(hosts);
    highlightSelectedRankHost();
}

void RunsView::highlightSelectedRankHost()
{
    QString host;
    const QModelIndexList rows = m_stragglerTable->selectionModel()->selectedRows(StragglerTableModel::Rank);
    if (!rows.isEmpty()) {
        const int rank = rows.front().data(StragglerTableModel::kSortRole).toInt();
        if (rank >= 0 && std::size_t(rank) < m_rankHosts.size())
            host = m_rankHosts[std::size_t(rank)];
    }
    m_nicOverlay->setHighlightedHost(host);
}

void RunsView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitToWidth();
}

void RunsView::fitToWidth()
{
    // Narrow (a 1366 px laptop with the docks open): the stored-runs pane gives its width to the
    // run (unless the user chose). The heatmap takes 11/20 of the rest: its plot is square beside
    // its colour bar, so it is limited by its width (166 px at 1920x1080 with 9/20; 256 px and more
    // with 11/20 from 1600x1000 on, enough for the 64 x 64 pods of a 16,384-rank run), while the
    // bar chart reads at any width.
    setPanesTabbed(height() < kShortHeightPx);
    const bool narrow = width() < kNarrowWidthPx;
    const bool paneWasShown = !m_left->isHidden();
    if (!m_runsPaneChosen) {
        // An empty list beside a run (the example run of a first start, a run imported into a
        // project without a file) only takes the run's width.
        const bool shown = !isShowingRun() || (!narrow && m_runs->rowCount() > 0);
        m_left->setVisible(shown);
        m_runsToggle->setChecked(shown);
    }
    // The row is split again when its width changes class or the stored-runs pane came or went.
    if (narrow != m_narrow || !m_topSized || paneWasShown != !m_left->isHidden()) {
        m_narrow = narrow;
        m_top->setStretchFactor(0, 9);
        m_top->setStretchFactor(1, 11);
        // Once the splitter has its width (after this resize is laid out).
        QTimer::singleShot(0, this, &RunsView::splitTop);
    }
}

void RunsView::setPanesTabbed(bool tabbed)
{
    if (tabbed == m_short && m_top->parentWidget() != m_content)
        return;
    m_short = tabbed;
    const QList<QWidget*> panes { m_top, m_tablesBox, m_timelineBox };
    if (tabbed) {
        m_vertical->hide();
        // No minimum beyond the tab's own: each pane has the whole height.
        m_tablesBox->setMinimumHeight(0);
        m_paneTabs->addTab(m_top, tr("Breakdown and traffic"));
        m_paneTabs->addTab(m_timelineBox, tr("Timeline"));
        m_paneTabs->addTab(m_tablesBox, tr("Stragglers and collectives"));
        m_paneTabs->setCurrentIndex(0);
        m_paneTabs->show();
    } else {
        m_paneTabs->hide();
        while (m_paneTabs->count() > 0)
            m_paneTabs->removeTab(0);
        for (QWidget* pane : panes) {
            m_vertical->addWidget(pane);
            pane->show();
        }
        // Stacked, the tables show at least four rows: their title, header, rows and scroll bar.
        const int rows = 4 * m_collectiveTable->verticalHeader()->defaultSectionSize();
        m_tablesBox->setMinimumHeight(fontMetrics().height() + 6
            + m_collectiveTable->horizontalHeader()->sizeHint().height() + rows
            + m_collectiveTable->horizontalScrollBar()->sizeHint().height() + 2 * m_collectiveTable->frameWidth());
        m_vertical->setStretchFactor(0, 4);
        m_vertical->setStretchFactor(1, 3);
        m_vertical->setStretchFactor(2, 4);
        m_vertical->setSizes({ 400, 250, 350 });
        m_vertical->show();
    }
    showTimelinePane();
    m_topSized = false;
    QTimer::singleShot(0, this, &RunsView::splitTop);
}

void RunsView::showTimelinePane()
{
    // Without GPU events the timeline pane (or tab) is hidden: its room goes to the others.
    if (m_short) {
        m_paneTabs->setTabVisible(m_paneTabs->indexOf(m_timelineBox), m_hasEvents);
    } else {
        m_timelineBox->setVisible(m_hasEvents);
    }
}

void RunsView::revealPane(QWidget* pane)
{
    if (m_short && m_paneTabs->indexOf(pane) >= 0)
        m_paneTabs->setCurrentWidget(pane);
}

void RunsView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    // Sized while hidden (the first window opens on another tab): split once it is laid out.
    if (!m_topSized)
        QTimer::singleShot(0, this, &RunsView::splitTop);
}

void RunsView::splitTop()
{
    const int total = m_top->width();
    if (total < 100 || !m_top->isVisible())
        return;
    // The heatmap's plot is square: on a short pane (a laptop's) it is limited by the height and
    // part of its 11/20 stays empty beside it. The chart then takes the width its legend beside
    // the plot needs, as far as the heatmap's minimum (its row of filters) allows.
    int chart = total * 9 / 20;
    if (m_top->height() < total * 11 / 20)
        chart = std::max(chart,
            std::min(
                m_chart->besideLegendWidth(), total - m_heatmapSlot->minimumSizeHint().width() - m_top->handleWidth()));
    m_top->setSizes({ chart, total - chart });
    m_topSized = true;
}

void RunsView::clearRun(const QString& message)
{
    m_steps.clear();
    m_stragglers->setStragglers({});
    m_collectives->setCollectives({});
    m_chart->setEmptyState(tr("No run selected."));
    m_timeline->setData(nullptr);
    m_title->setText(tr("Runs"));
    m_caption->clear();
    Q_EMIT eventsCleared();
    if (!message.isEmpty())
        m_empty->setText(message);
    m_stack->setCurrentWidget(m_empty);
    fitToWidth();
}

bool RunsView::isShowingRun() const { return m_stack->currentWidget() == m_content; }

QString RunsView::headerText() const { return m_title->text() + QLatin1Char(' ') + m_caption->text(); }

void RunsView::onStepChanged(int index)
{
    // Item 0 is the mean of all steps, item i the step at index i - 1.
    m_chart->setSteps(m_steps, index <= 0 ? -1 : index - 1);
}

void RunsView::addRunAction(QWidget* widget)
{
    widget->setParent(m_content);
    // Before the stretch that closes the row.
    m_runActions->insertWidget(m_runActions->count() - 1, widget);
}

void RunsView::setHeatmapWidget(QWidget* widget)
{
    if (m_heatmapWidget == widget)
        return;
    delete m_heatmapWidget;
    m_heatmapWidget = widget;
    m_heatmapPlaceholder->setVisible(widget == nullptr);
    if (widget)
        m_heatmapLayout->addWidget(widget);
}

void RunsView::setImporting(bool importing)
{
    m_progress->setVisible(importing);
    m_cancel->setVisible(importing);
    m_importStatus->setVisible(importing);
    m_import->setEnabled(!importing);
    if (importing) {
        m_progress->setValue(0);
        m_importStatus->clear();
    }
}

bool RunsView::isImporting() const { return !m_progress->isHidden(); }

void RunsView::setImportProgress(double fraction)
{
    m_progress->setValue(int(std::clamp(fraction, 0.0, 1.0) * 1000 + 0.5));
}

void RunsView::setImportStatus(const QString& text) { m_importStatus->setText(text); }

void RunsView::dragEnterEvent(QDragEnterEvent* event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!isImporting() && !urls.isEmpty()
        && std::all_of(urls.begin(), urls.end(), [](const QUrl& u) { return u.isLocalFile(); }))
        event->acceptProposedAction();
}

void RunsView::dropEvent(QDropEvent* event)
{
    QStringList paths;
    for (const QUrl& url : event->mimeData()->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty() || isImporting())
        return;
    event->acceptProposedAction();
    Q_EMIT importPathsDropped(paths);
}

} // namespace clusterscope::views
