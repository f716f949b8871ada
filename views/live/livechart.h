#pragma once

// The Live tab's chart: one link direction's utilisation over the window (line) against its tier's
// mean (line) and the band from the tier's mean to its largest link per interval, with the 95 % peak
// guideline dashed. Seconds since the window start on x, percent on y. Gaps (NaN) break the lines.
// Qt Charts stays out of this header.

#include "views/live/livedata.h"

#include <QWidget>

QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
QT_END_NAMESPACE

namespace clusterscope::views {

class LiveChart : public QWidget {
    Q_OBJECT
public:
    explicit LiveChart(QWidget* parent = nullptr);
    ~LiveChart() override;

    void setData(const LiveChartData& data);
    void clear(const QString& message);
    const LiveChartData& data() const { return m_data; }
    QChart* chart() const;
    /// Points drawn for the selected link (NaN bins excluded), for tests.
    int linkPointCount() const { return m_linkPoints; }

private:
    QChartView* m_view = nullptr;
    LiveChartData m_data;
    int m_linkPoints = 0;
};

} // namespace clusterscope::views
