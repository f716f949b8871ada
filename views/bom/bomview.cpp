#include "views/bom/bomview.h"

#include "engine/core/atomicfile.h"
#include "views/models/bomtablemodel.h"

#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace clusterscope::views {

BomView::BomView(QWidget* parent)
    : QWidget(parent)
    , m_model(new BomTableModel(this))
    , m_table(new QTableView(this))
    , m_title(new QLabel(this))
    , m_totals(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.2);
    m_title->setFont(bold);
    layout->addWidget(m_title);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_totals->setWordWrap(true);
    layout->addWidget(m_totals);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(Qt::UserRole);
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    layout->addWidget(m_table, 1);
    auto* exportButton = new QPushButton(tr("Export CSV..."), this);
    connect(exportButton, &QPushButton::clicked, this, &BomView::exportCsvInteractively);
    layout->addWidget(exportButton, 0, Qt::AlignRight);
}

void BomView::setBom(const engine::FabricBom& bom, const QString& title)
{
    m_model->setBom(bom);
    m_table->resizeColumnsToContents();
    m_title->setText(title);
    const QLocale l;
    m_totals->setText(tr("Network: $%1 (%2 per GPU, %3% of the cluster's $%4), %5 kW.   GPUs: %6 at $%7.")
                          .arg(l.toString(bom.networkCostUsd, 'f', 0),
                              QStringLiteral("$") + l.toString(bom.networkCostPerGpuUsd(), 'f', 0),
                              l.toString(bom.networkShare() * 100, 'f', 1), l.toString(bom.clusterCostUsd, 'f', 0),
                              l.toString(bom.networkPowerWatts / 1000, 'f', 1), l.toString(bom.gpus),
                              l.toString(bom.gpuCostUsd, 'f', 0)));
    m_table->setEnabled(true);
}

void BomView::setEmptyState(const QString& message)
{
    m_model->setBom({});
    m_title->setText(tr("Bill of materials"));
    m_totals->setText(message);
    m_table->setEnabled(false);
}

QString BomView::totalsText() const { return m_totals->text(); }

std::optional<QString> BomView::exportCsv(const QString& path) const
{
    if (auto s = engine::writeFileAtomically(path.toStdString(), engine::bomCsv(m_model->bom())); !s)
        return QString::fromStdString(s.message());
    return std::nullopt;
}

void BomView::exportCsvInteractively()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export bill of materials"), QStringLiteral("bom.csv"), tr("CSV files (*.csv)"));
    if (path.isEmpty())
        return;
    if (auto error = exportCsv(path))
        QMessageBox::warning(this, tr("Export failed"), *error);
}

} // namespace clusterscope::views
