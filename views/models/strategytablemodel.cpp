#include "views/models/strategytablemodel.h"

#include "views/presentation/strategylabel.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <algorithm>
#include <limits>

namespace clusterscope::views {

namespace {

    QString recomputeName(const engine::TrainingStrategy& s)
    {
        switch (s.recompute) {
        case engine::Recompute::None:
            return StrategyTableModel::tr("none");
        case engine::Recompute::Selective:
            return StrategyTableModel::tr("selective");
        case engine::Recompute::Full:
            if (s.recomputeMethod == engine::RecomputeMethod::Block)
                return StrategyTableModel::tr("block %1").arg(s.recomputeNumLayers);
            return s.recomputeNumLayers > 1 ? StrategyTableModel::tr("full (uniform %1)").arg(s.recomputeNumLayers)
                                            : StrategyTableModel::tr("full");
        }
        return {};
    }

    QString cpKindName(engine::ContextParallelKind k)
    {
        return k == engine::ContextParallelKind::Ulysses ? StrategyTableModel::tr("Ulysses")
                                                         : StrategyTableModel::tr("ring");
    }

    QString money(double usd)
    {
        const QLocale l;
        if (usd >= 1e6)
            return QStringLiteral("$%1M").arg(l.toString(usd / 1e6, 'f', 2));
        if (usd >= 100)
            return QStringLiteral("$%1").arg(l.toString(usd, 'f', 0));
        return QStringLiteral("$%1").arg(l.toString(usd, 'f', 2));
    }

} // namespace

void StrategyTableModel::setEstimates(const std::vector<engine::TrainingEstimate>& estimates)
{
    beginResetModel();
    m_estimates = estimates;
    m_contended.clear();
    m_pending = 0;
    endResetModel();
}

void StrategyTableModel::setContendedPending(int rows)
{
    m_pending = std::max(0, rows);
    if (!m_estimates.empty())
        Q_EMIT dataChanged(index(0, IterationWithContention), index(rowCount() - 1, IterationWithContention));
}

void StrategyTableModel::setContendedSeconds(std::vector<double> seconds)
{
    m_contended = std::move(seconds);
    m_pending = 0;
    if (!m_estimates.empty())
        Q_EMIT dataChanged(index(0, IterationWithContention), index(rowCount() - 1, IterationWithContention));
}

int StrategyTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_estimates.size());
}

int StrategyTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StrategyTableModel::display(const engine::TrainingEstimate& e, int column) const
{
    const engine::ParallelismSpec& p = e.strategy.parallelism;
    const QLocale l;
    switch (column) {
    case Tp:
        return p.tp;
    case Pp:
        return p.pp;
    case Vpp:
        return p.vpp;
    case Dp:
        return p.dp;
    case Cp:
        return p.cp > 1 ? QStringLiteral("%1 (%2)").arg(p.cp).arg(cpKindName(p.cpKind)) : QStringLiteral("1");
    case Ep: // folded MoE (expert tensor parallelism different from tp) says its etp
        return p.expertTp() != p.tp ? QVariant(QStringLiteral("%1 (ETP %2)").arg(p.ep).arg(p.etp)) : QVariant(p.ep);
    case MicroBatch:
        return e.strategy.microBatch;
    case Zero:
        return p.zero;
    case Recompute:
        return recomputeName(e.strategy);
    case IterationSeconds:
        return l.toString(e.iterationSeconds, 'f', 3);
    case TflopsPerGpu:
        return l.toString(e.tflopsPerGpu, 'f', 1);
    case Mfu:
        return QStringLiteral("%1%").arg(l.toString(e.mfu * 100, 'f', 1));
    case TokensPerSecond:
        return l.toString(e.tokensPerSecond, 'f', 0);
    case MemoryPerGpu:
        return QStringLiteral("%1 GB %2")
            .arg(l.toString(e.memory.totalBytes() / 1e9, 'f', 1), e.memory.fits() ? tr("fits") : tr("OOM"));
    case NetworkShare:
        return QStringLiteral("%1%").arg(l.toString(e.networkShare * 100, 'f', 1));
    case CostPerIteration:
        return money(e.costPerIterationUsd);
    case CostToTrain:
        return e.trainingCostUsd > 0 ? money(e.trainingCostUsd) : tr("no budget");
    default:
        return {};
    }
}

QVariant StrategyTableModel::sortValue(const engine::TrainingEstimate& e, int row, int column) const
{
    const engine::ParallelismSpec& p = e.strategy.parallelism;
    switch (column) {
    case Rank:
        return row;
    case Cp:
        return p.cp * 2 + (p.cpKind == engine::ContextParallelKind::Ulysses ? 1 : 0);
    case Ep:
        return p.ep;
    case Recompute:
        // Block recomputation of n layers sorts between selective and full, by n.
        return e.strategy.blockRecompute() ? 1.0 + e.strategy.recomputeNumLayers / 1e6
                                           : static_cast<double>(e.strategy.recompute);
    case IterationSeconds:
        return e.iterationSeconds;
    case IterationWithContention:
        // Rows without it sort after every row with it.
        return std::size_t(row) < m_contended.size() ? m_contended[std::size_t(row)]
                                                     : std::numeric_limits<double>::infinity();
    case TflopsPerGpu:
        return e.tflopsPerGpu;
    case Mfu:
        return e.mfu;
    case TokensPerSecond:
        return e.tokensPerSecond;
    case MemoryPerGpu:
        return e.memory.totalBytes();
    case NetworkShare:
        return e.networkShare;
    case CostPerIteration:
        return e.costPerIterationUsd;
    case CostToTrain:
        return e.trainingCostUsd;
    default:
        return display(e, column);
    }
}

QVariant StrategyTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const engine::TrainingEstimate& e = m_estimates[std::size_t(row)];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == IterationWithContention)
            return std::size_t(row) < m_contended.size() ? QLocale().toString(m_contended[std::size_t(row)], 'f', 3)
                : row < m_pending                        ? QStringLiteral("…")
                                                         : QStringLiteral("–");
        return index.column() == Rank ? QVariant(row + 1) : display(e, index.column());
    case kSortRole:
        return sortValue(e, row, index.column());
    case kRankRole:
        return row;
    case Qt::TextAlignmentRole:
        return index.column() == Recompute ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                           : int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if ((index.column() == MemoryPerGpu && !e.memory.fits())
            || (index.column() == NetworkShare && e.networkShare > engine::kNetworkShareGuideline))
            return QBrush(QColor(0xB0, 0x30, 0x30));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == MemoryPerGpu)
            return tr("%1 GB of %2 GB HBM: weights %3, gradients %4, optimizer %5, activations %6, other %7 GB")
                .arg(e.memory.totalBytes() / 1e9, 0, 'f', 1)
                .arg(e.memory.capacityBytes / 1e9, 0, 'f', 0)
                .arg(e.memory.weightsBytes / 1e9, 0, 'f', 1)
                .arg(e.memory.gradientsBytes / 1e9, 0, 'f', 1)
                .arg(e.memory.optimizerBytes / 1e9, 0, 'f', 1)
                .arg(e.memory.activationsBytes / 1e9, 0, 'f', 1)
                .arg((e.memory.otherBytes + e.memory.compressionBytes) / 1e9, 0, 'f', 1);
        if (index.column() == IterationWithContention && std::size_t(row) >= m_contended.size() && row < m_pending)
            return tr("Being computed: the strategy's traffic routed on the fabric");
        if (index.column() == NetworkShare)
            return tr("Exposed communication / iteration time (guideline: under %1%)")
                .arg(engine::kNetworkShareGuideline * 100);
        return strategyLabel(e.strategy);
    default:
        return {};
    }
}

QVariant StrategyTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Vpp:
            return tr("Virtual pipeline stages per GPU (interleaving)");
        case Cp:
            return tr("Context parallelism and its flavour (ring attention or Ulysses all-to-all)");
        case MicroBatch:
            return tr("Sequences per micro-batch");
        case Zero:
            return tr("ZeRO stage (3 = fully sharded)");
        case IterationSeconds:
            return tr("The model's iteration time without fabric contention: the search ranks on it. Applied to "
                      "the scenario, a strategy's traffic is routed on the fabric and the other tabs show its time "
                      "with the contention it meets");
        case IterationWithContention:
            return tr("The iteration time with the contention of the strategy's traffic routed on the scenario's "
                      "fabric: what the other tabs show once it is applied. Computed for the fastest rows");
        case TflopsPerGpu:
            return tr("Model TFLOP/s per GPU (1e12 FLOP/s, recomputation not counted)");
        case Mfu:
            return tr("Model FLOPs utilisation: model FLOP/s over the GPU's peak");
        case CostPerIteration:
            return tr("GPU-hours of one iteration times the GPU-hour price (USD)");
        case CostToTrain:
            return tr("GPU cost of the scenario's token budget (USD)");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Rank:
        return tr("#");
    case Tp:
        return tr("TP");
    case Pp:
        return tr("PP");
    case Vpp:
        return tr("VPP");
    case Dp:
        return tr("DP");
    case Cp:
        return tr("CP");
    case Ep:
        return tr("EP");
    case MicroBatch:
        return tr("Micro-batch");
    case Zero:
        return tr("ZeRO");
    case Recompute:
        return tr("Recompute");
    case IterationSeconds:
        return tr("Iteration, no contention (s)");
    case IterationWithContention:
        return tr("With contention (s)");
    case TflopsPerGpu:
        return tr("TFLOP/s per GPU");
    case Mfu:
        return tr("MFU");
    case TokensPerSecond:
        return tr("Tokens/s");
    case MemoryPerGpu:
        return tr("Memory per GPU");
    case NetworkShare:
        return tr("Network share");
    case CostPerIteration:
        return tr("Cost / iteration");
    case CostToTrain:
        return tr("Cost to train");
    default:
        return {};
    }
}

} // namespace clusterscope::views
