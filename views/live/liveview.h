#pragma once

// The Live tab: connect to a Prometheus-compatible server (URL, auth, "Test connection"), pick a
// window or follow live, and see the alert list, the sortable per-link table, the chart of the
// selected link against its tier, and the fabric coloured by MEASURED utilisation. The view only
// shows and asks; the app's live controller queries on a worker and fills it.

#include "views/live/livedata.h"
#include "views/presentation/fabricscenedata.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTreeWidget;

namespace clusterscope::views {

class FabricView;
class LiveChart;
class LiveLinkTableModel;

struct LiveAlertRow {
    QString severity; ///< "critical", "warning", "info"
    QString rule;
    QString link; ///< the link's name, or empty
    QString message;
    int linkId = -1;
    int direction = -1;
};

class LiveView : public QWidget {
    Q_OBJECT
public:
    enum class Connection { Disconnected, Connecting, Connected, Failed };
    enum class Auth { None, Bearer, Basic };
    enum class ColourBy { Peak, Average, P99 };

    explicit LiveView(QWidget* parent = nullptr);
    ~LiveView() override;

    // What the user asked for.
    QString url() const;
    void setUrl(const QString& url);
    Auth auth() const;
    QString user() const;
    QString secret() const; ///< the bearer token or the basic-auth password
    bool insecureTls() const; ///< https without certificate checks (a self-signed lab server)
    /// Window length (s) when following or for "last N"; 0 when a fixed window is chosen.
    double windowSeconds() const;
    /// The fixed window (seconds since the epoch) when windowSeconds() is 0.
    double fixedStartS() const;
    double fixedEndS() const;
    void setFixedWindow(double startS, double endS);
    /// Chooses "last N" (60, 300, 900 or 3600 s); false for another length.
    bool setWindowSeconds(double seconds);
    bool follow() const;
    void setFollow(bool on);
    int refreshSeconds() const; ///< >= 1, default 5
    ColourBy colourBy() const;
    bool relativeScale() const;

    // What the controller shows.
    void setConnectionState(Connection state, const QString& text);
    Connection connectionState() const { return m_connection; }
    QString connectionText() const;
    void setBusy(bool busy);
    void setProgress(int done, int total);
    void setSummary(const QString& text);
    QString summary() const;
    void setAlerts(const std::vector<LiveAlertRow>& alerts);
    void setRows(std::vector<LiveLinkRow> rows);
    void setScene(const FabricSceneData& scene);
    void setChart(const LiveChartData& data);
    void setRecordEnabled(bool on);

    LiveLinkTableModel* linkModel() const { return m_model; }
    QSortFilterProxyModel* sortedLinks() const { return m_sorted; }
    QTableView* linkTable() const { return m_table; }
    QTreeWidget* alertList() const { return m_alerts; }
    FabricView* fabricView() const { return m_fabric; }
    LiveChart* chart() const { return m_chart; }
    QPushButton* testButton() const { return m_test; }
    QPushButton* refreshButton() const { return m_refresh; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* recordButton() const { return m_record; }

Q_SIGNALS:
    void testConnectionRequested();
    void refreshRequested();
    void cancelRequested();
    void recordRequested();
    void followChanged(bool on);
    void refreshIntervalChanged(int seconds);
    /// Colour choice or scale changed: the scene is redrawn from the last report.
    void presentationChanged();
    /// A row of the table or an alert was chosen: chart that link direction.
    void linkChosen(int link, int direction);

private:
    QLineEdit* m_url = nullptr;
    QComboBox* m_auth = nullptr;
    QLineEdit* m_user = nullptr;
    QLineEdit* m_secret = nullptr;
    QCheckBox* m_insecure = nullptr;
    QPushButton* m_test = nullptr;
    QLabel* m_state = nullptr;
    QComboBox* m_window = nullptr;
    QDateTimeEdit* m_start = nullptr;
    QDateTimeEdit* m_end = nullptr;
    QCheckBox* m_follow = nullptr;
    QSpinBox* m_refreshS = nullptr;
    QPushButton* m_refresh = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QComboBox* m_colourBy = nullptr;
    QComboBox* m_scale = nullptr;
    QPushButton* m_record = nullptr;
    QLabel* m_summary = nullptr;
    QTreeWidget* m_alerts = nullptr;
    LiveLinkTableModel* m_model = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr;
    QTableView* m_table = nullptr;
    FabricView* m_fabric = nullptr;
    LiveChart* m_chart = nullptr;
    Connection m_connection = Connection::Disconnected;
    bool m_restoringSelection = false; ///< setRows() re-selecting the chosen row
};

} // namespace clusterscope::views
