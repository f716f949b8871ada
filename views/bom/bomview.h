#pragma once

// The Bill of materials tab: the BOM table (sortable), totals (network cost, cost per GPU, network
// share of cluster cost, power) and CSV export.

#include <QWidget>

#include <optional>

class QLabel;
class QTableView;

namespace clusterscope::engine {
struct FabricBom;
}

namespace clusterscope::views {

class BomTableModel;

class BomView : public QWidget {
    Q_OBJECT
public:
    explicit BomView(QWidget* parent = nullptr);

    void setBom(const engine::FabricBom& bom, const QString& title);
    void setEmptyState(const QString& message);

    BomTableModel* model() const { return m_model; }
    QString totalsText() const;
    /// Writes the CSV (engine::bomCsv) to `path`; returns an error message on failure.
    std::optional<QString> exportCsv(const QString& path) const;

public Q_SLOTS:
    void exportCsvInteractively();

private:
    BomTableModel* m_model;
    QTableView* m_table;
    QLabel* m_title;
    QLabel* m_totals;
};

} // namespace clusterscope::views
