#include "views/strategies/strategiesview.h"

#include "engine/training/strategysearch.h"
#include "views/models/strategytablemodel.h"
#include "views/strategies/paretochart.h"
#include "views/widgets/emptystatewidget.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace clusterscope::views {

StrategiesView::StrategiesView(QWidget* parent)
    : QWidget(parent)
    , m_model(new StrategyTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_pareto(new ParetoChart(this))
    , m_title(new QLabel(tr("Strategies"), this))
    , m_caption(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_apply(new QPushButton(tr("Apply to scenario"), this))
    , m_applyAction(new QAction(tr("Apply strategy to scenario"), this))
    , m_stack(new QStackedWidget(this))
    , m_empty(new EmptyStateWidget(
          tr("Strategies"), tr("Run a strategy search to rank every valid parallelism layout."), this))
    , m_content(new QWidget(this))
    , m_notice(new QWidget(this))
    , m_noticeText(new QLabel(m_notice))
    , m_applyBest(new QPushButton(tr("Apply the best valid strategy"), m_notice))
{
    auto* layout = new QVBoxLayout(this);
    auto* header = new QHBoxLayout;
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_title->setFont(bold);
    header->addWidget(m_title);
    m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_caption->setWordWrap(true); // a long caption must not set the window's minimum width
    header->addWidget(m_caption, 1);
    m_progress->setRange(0, 1000);
    m_progress->setFormat(tr("Searching... %p%"));
    m_progress->setMinimumWidth(220);
    m_progress->setMaximumWidth(320);
    header->addWidget(m_progress);
    header->addWidget(m_cancel);
    layout->addLayout(header);
    connect(m_cancel, &QPushButton::clicked, this, &StrategiesView::cancelRequested);

    auto* notice = new QHBoxLayout(m_notice);
    notice->setContentsMargins(8, 4, 8, 4);
    m_notice->setAutoFillBackground(true);
    QPalette amber = m_notice->palette();
    amber.setColor(QPalette::Window, QColor(0xFF, 0xF4, 0xD6));
    m_notice->setPalette(amber);
    m_noticeText->setWordWrap(true);
    m_noticeText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notice->addWidget(m_noticeText, 1);
    notice->addWidget(m_applyBest);
    layout->addWidget(m_notice);
    m_notice->hide();
    connect(m_applyBest, &QPushButton::clicked, this, [this] {
        if (m_model->rowCount() > 0)
            Q_EMIT applyRequested(m_model->estimate(0).strategy);
    });

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StrategyTableModel::kSortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(StrategyTableModel::Rank, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    // The two times first, beside the rank: on a laptop the table shows ~10 columns, and the
    // contended time is what the other tabs show once a row is applied (the model's order stays).
    m_table->horizontalHeader()->moveSection(
        m_table->horizontalHeader()->visualIndex(StrategyTableModel::IterationSeconds), 1);
    m_table->horizontalHeader()->moveSection(
        m_table->horizontalHeader()->visualIndex(StrategyTableModel::IterationWithContention), 2);
    m_table->addAction(m_applyAction);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(
        m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &StrategiesView::onSelectionChanged);
    connect(m_pareto, &ParetoChart::pointClicked, this, &StrategiesView::selectRow);

    auto* splitter = new QSplitter(Qt::Vertical, m_content);
    splitter->addWidget(m_table);
    splitter->addWidget(m_pareto);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    splitter->setSizes({ 400, 600 }); // proportions: the chart gets the larger share
    m_pareto->setMinimumHeight(320);
    auto* footer = new QHBoxLayout;
    auto* hint = new QLabel(tr("Click a column header to sort; select a row or a point, then apply it to make it the "
                               "scenario's parallelism, micro-batch and recomputation."),
        m_content);
    hint->setForegroundRole(QPalette::PlaceholderText);
    hint->setWordWrap(true);
    footer->addWidget(hint, 1);
    footer->addWidget(m_apply);
    auto* contentLayout = new QVBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(splitter, 1);
    contentLayout->addLayout(footer);
    connect(m_apply, &QPushButton::clicked, this, &StrategiesView::applySelected);
    connect(m_applyAction, &QAction::triggered, this, &StrategiesView::applySelected);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_content);
    layout->addWidget(m_stack, 1);
    setBusy(false);
    onSelectionChanged();
}

void StrategiesView::setResult(const engine::SearchResult& result, const QString& title)
{
    m_model->setEstimates(result.ranked);
    m_pareto->setResult(result);
    m_title->setText(title.isEmpty() ? tr("Strategies") : tr("Strategies: %1").arg(title));
    const QLocale l;
    m_caption->setText(tr("%1 combinations enumerated, %2 valid, %3 fit in memory; the %4 fastest are listed, "
                          "%5 on the Pareto front.%6")
                           .arg(l.toString(result.candidates), l.toString(result.valid), l.toString(result.fitting),
                               l.toString(qlonglong(result.ranked.size())), l.toString(qlonglong(result.pareto.size())),
                               result.cancelled ? tr(" Search cancelled: partial results.") : QString()));
    m_table->resizeColumnsToContents();
    m_stack->setCurrentWidget(
        result.ranked.empty() && result.pareto.empty() ? static_cast<QWidget*>(m_empty) : m_content);
    if (result.ranked.empty())
        m_empty->setText(tr("No strategy fits in GPU memory (%1 valid of %2).")
                             .arg(l.toString(result.valid), l.toString(result.candidates)));
    onSelectionChanged();
}

void StrategiesView::setEmptyState(const QString& message)
{
    m_model->setEstimates({});
    m_pareto->clear();
    m_caption->clear();
    m_empty->setText(message);
    m_stack->setCurrentWidget(m_empty);
    onSelectionChanged();
}

void StrategiesView::setBusy(bool busy)
{
    m_progress->setVisible(busy);
    m_cancel->setVisible(busy);
    if (busy)
        m_progress->setValue(0);
}

bool StrategiesView::isBusy() const { return !m_progress->isHidden(); }

void StrategiesView::setProgress(double fraction)
{
    m_progress->setValue(int(std::clamp(fraction, 0.0, 1.0) * 1000 + 0.5));
}

int StrategiesView::selectedRow() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? -1 : m_proxy->mapToSource(rows.first()).row();
}

void StrategiesView::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_table->clearSelection();
        return;
    }
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    m_table->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    m_table->scrollTo(index);
}

QString StrategiesView::captionText() const { return m_caption->text(); }

void StrategiesView::setNotice(const QString& text, bool offerBest)
{
    m_noticeText->setText(text);
    m_applyBest->setVisible(offerBest);
    m_notice->setVisible(!text.isEmpty());
}

QString StrategiesView::noticeText() const { return m_notice->isHidden() ? QString() : m_noticeText->text(); }
bool StrategiesView::isShowingEmptyState() const { return m_stack->currentWidget() == m_empty; }

void StrategiesView::onSelectionChanged()
{
    const int row = selectedRow();
    m_pareto->setSelectedIndex(row);
    m_apply->setEnabled(row >= 0);
    m_applyAction->setEnabled(row >= 0);
}

void StrategiesView::applySelected()
{
    if (const int row = selectedRow(); row >= 0)
        Q_EMIT applyRequested(m_model->estimate(row).strategy);
}

} // namespace clusterscope::views
