#pragma once

// The bill of materials as a table: one row per line (category, item, description, length,
// quantity, unit price, total, unit power, total power, price source), sortable through a proxy.

#include "engine/fabric/fabricbom.h"

#include <QAbstractTableModel>

namespace clusterscope::views {

class BomTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Category,
        Item,
        Description,
        Length,
        Quantity,
        UnitPrice,
        Total,
        UnitPower,
        TotalPower,
        Source,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    void setBom(const engine::FabricBom& bom);
    const engine::FabricBom& bom() const { return m_bom; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    engine::FabricBom m_bom;
};

} // namespace clusterscope::views
