#include "views/live/liveview.h"

#include "views/fabric/fabricview.h"
#include "views/live/livechart.h"
#include "views/live/livelinktablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace clusterscope::views {

LiveView::LiveView(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* body = new QSplitter(Qt::Horizontal, this);
    layout->addWidget(body);
    // Left: the controls as a compact form (narrow enough for a window beside the docks), the
    // summary, the alerts and the per-link table.
    auto* panel = new QWidget(body);
    auto* side = new QVBoxLayout(panel);
    side->setContentsMargins(0, 0, 0, 0);
    auto* form = new QGridLayout;
    int row = 0;
    auto addRow = [&](const QString& label, std::initializer_list<QWidget*> widgets) {
        if (!label.isEmpty())
            form->addWidget(new QLabel(label, panel), row, 0);
        auto* line = new QHBoxLayout;
        for (QWidget* w : widgets)
            line->addWidget(w, w == widgets.begin()[0] ? 1 : 0);
        form->addLayout(line, row, 1);
        ++row;
    };

    // Connection: URL, auth, test, and the state, always visible.
    m_url = new QLineEdit(panel);
    m_url->setPlaceholderText(QStringLiteral("http://prometheus:9090"));
    m_auth = new QComboBox(panel);
    m_auth->addItems({ tr("No auth"), tr("Bearer token"), tr("Basic auth") });
    m_user = new QLineEdit(panel);
    m_user->setPlaceholderText(tr("user"));
    m_secret = new QLineEdit(panel);
    m_secret->setEchoMode(QLineEdit::Password);
    m_secret->setPlaceholderText(tr("token / password"));
    m_test = new QPushButton(tr("Test connection"), panel);
    m_state = new QLabel(panel);
    m_state->setTextFormat(Qt::PlainText);
    m_state->setWordWrap(true);
    m_state->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    addRow(tr("Server:"), { m_url, m_test });
    m_insecure = new QCheckBox(tr("skip TLS checks"), panel);
    m_insecure->setToolTip(tr("https without certificate and host-name verification (self-signed lab servers)"));
    addRow(tr("Auth:"), { m_auth, m_user, m_secret, m_insecure });
    form->addWidget(m_state, row++, 0, 1, 2);
    auto authChanged = [this] {
        m_user->setEnabled(auth() == Auth::Basic);
        m_secret->setEnabled(auth() != Auth::None);
    };
    connect(m_auth, &QComboBox::currentIndexChanged, this, authChanged);
    authChanged();

    // Window, follow, refresh, progress and cancel.
    m_window = new QComboBox(panel);
    m_window->addItem(tr("Last 1 min"), 60);
    m_window->addItem(tr("Last 5 min"), 300);
    m_window->addItem(tr("Last 15 min"), 900);
    m_window->addItem(tr("Last 1 h"), 3600);
    m_window->addItem(tr("Fixed"), 0);
    m_window->setCurrentIndex(1);
    m_start = new QDateTimeEdit(QDateTime::currentDateTime().addSecs(-300), panel);
    m_end = new QDateTimeEdit(QDateTime::currentDateTime(), panel);
    for (auto* e : { m_start, m_end }) {
        e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        e->setCalendarPopup(true);
    }
    m_follow = new QCheckBox(tr("Follow live, every"), panel);
    m_refreshS = new QSpinBox(panel);
    m_refreshS->setRange(1, 3600);
    m_refreshS->setValue(5);
    m_refreshS->setSuffix(tr(" s"));
    m_refresh = new QPushButton(tr("Refresh"), panel);
    m_progress = new QProgressBar(panel);
    m_progress->setFormat(tr("query %v/%m"));
    m_cancel = new QPushButton(tr("Cancel"), panel);
    auto* spacer = new QWidget(panel);
    addRow(tr("Window:"), { m_window, m_follow, m_refreshS });
    addRow(tr("From:"), { m_start, m_end });
    addRow({}, { spacer, m_progress, m_refresh, m_cancel });
    // Presentation and record.
    m_colourBy = new QComboBox(panel);
    m_colourBy->addItems({ tr("1-s peak"), tr("average"), tr("p99") });
    m_scale = new QComboBox(panel);
    m_scale->addItems({ tr("absolute scale"), tr("relative to busiest") });
    m_record = new QPushButton(tr("Record window into project"), panel);
    addRow(tr("Colour:"), { m_colourBy, m_scale, m_record });
    side->addLayout(form);
    auto windowChanged = [this] {
        const bool fixed = windowSeconds() == 0;
        m_start->setEnabled(fixed);
        m_end->setEnabled(fixed);
        m_follow->setEnabled(!fixed);
        if (fixed)
            m_follow->setChecked(false);
    };
    connect(m_window, &QComboBox::currentIndexChanged, this, windowChanged);
    windowChanged();

    m_summary = new QLabel(panel);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    side->addWidget(m_summary);

    auto* lists = new QSplitter(Qt::Vertical, panel);
    m_alerts = new QTreeWidget(lists);
    m_alerts->setHeaderLabels({ tr("Severity"), tr("Alert"), tr("Link"), tr("Message") });
    m_alerts->setRootIsDecorated(false);
    m_alerts->setAlternatingRowColors(true);
    m_model = new LiveLinkTableModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(LiveLinkTableModel::SortRole);
    m_table = new QTableView(lists);
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(LiveLinkTableModel::Peak, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setDefaultSectionSize(66);
    m_table->horizontalHeader()->setSectionResizeMode(LiveLinkTableModel::Link, QHeaderView::Stretch);
    m_table->horizontalHeader()->setMinimumSectionSize(40);
    lists->addWidget(m_alerts);
    lists->addWidget(m_table);
    lists->setStretchFactor(0, 2);
    lists->setStretchFactor(1, 3);
    side->addWidget(lists, 1);

    // Right: the measured fabric over the chart.
    auto* right = new QSplitter(Qt::Vertical, body);
    m_fabric = new FabricView(right);
    m_fabric->setEmptyState(tr("Connect to a Prometheus-compatible server and refresh: the fabric of the current "
                               "scenario is drawn here coloured by measured utilisation."));
    m_chart = new LiveChart(right);
    right->addWidget(m_fabric);
    right->addWidget(m_chart);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 2);
    body->addWidget(panel);
    body->addWidget(right);
    body->setStretchFactor(0, 2);
    body->setStretchFactor(1, 3);

    connect(m_test, &QPushButton::clicked, this, &LiveView::testConnectionRequested);
    connect(m_refresh, &QPushButton::clicked, this, &LiveView::refreshRequested);
    connect(m_cancel, &QPushButton::clicked, this, &LiveView::cancelRequested);
    connect(m_record, &QPushButton::clicked, this, &LiveView::recordRequested);
    connect(m_follow, &QCheckBox::toggled, this, &LiveView::followChanged);
    connect(m_refreshS, &QSpinBox::valueChanged, this, &LiveView::refreshIntervalChanged);
    connect(m_colourBy, &QComboBox::currentIndexChanged, this, &LiveView::presentationChanged);
    connect(m_scale, &QComboBox::currentIndexChanged, this, &LiveView::presentationChanged);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
        if (!i.isValid() || m_restoringSelection)
            return;
        const auto& r = m_model->rows()[std::size_t(m_sorted->mapToSource(i).row())];
        Q_EMIT linkChosen(r.link, r.direction);
    });
    connect(m_alerts, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (!item)
            return;
        const int link = item->data(0, Qt::UserRole).toInt();
        const int direction = item->data(0, Qt::UserRole + 1).toInt();
        if (link >= 0)
            Q_EMIT linkChosen(link, direction < 0 ? 0 : direction);
    });

    setBusy(false);
    setRecordEnabled(false);
    setConnectionState(Connection::Disconnected, tr("not connected"));
}

LiveView::~LiveView() = default;

QString LiveView::url() const { return m_url->text().trimmed(); }
void LiveView::setUrl(const QString& url) { m_url->setText(url); }
bool LiveView::insecureTls() const { return m_insecure->isChecked(); }
LiveView::Auth LiveView::auth() const { return static_cast<Auth>(m_auth->currentIndex()); }
QString LiveView::user() const { return m_user->text(); }
QString LiveView::secret() const { return m_secret->text(); }
double LiveView::windowSeconds() const { return m_window->currentData().toDouble(); }
double LiveView::fixedStartS() const { return double(m_start->dateTime().toSecsSinceEpoch()); }
double LiveView::fixedEndS() const { return double(m_end->dateTime().toSecsSinceEpoch()); }

void LiveView::setFixedWindow(double startS, double endS)
{
    m_window->setCurrentIndex(m_window->count() - 1);
    m_start->setDateTime(QDateTime::fromSecsSinceEpoch(qint64(startS)));
    m_end->setDateTime(QDateTime::fromSecsSinceEpoch(qint64(endS)));
}

bool LiveView::setWindowSeconds(double seconds)
{
    const int i = m_window->findData(int(seconds));
    if (i < 0 || seconds <= 0)
        return false;
    m_window->setCurrentIndex(i);
    return true;
}

bool LiveView::follow() const { return m_follow->isChecked(); }
void LiveView::setFollow(bool on) { m_follow->setChecked(on); }
int LiveView::refreshSeconds() const { return m_refreshS->value(); }
LiveView::ColourBy LiveView::colourBy() const { return static_cast<ColourBy>(m_colourBy->currentIndex()); }
bool LiveView::relativeScale() const { return m_scale->currentIndex() == 1; }

void LiveView::setConnectionState(Connection state, const QString& text)
{
    m_connection = state;
    QString colour;
    QString prefix;
    switch (state) {
    case Connection::Disconnected:
        colour = QStringLiteral("#666666");
        prefix = QStringLiteral("○ ");
        break;
    case Connection::Connecting:
        colour = QStringLiteral("#a06000");
        prefix = QStringLiteral("◌ ");
        break;
    case Connection::Connected:
        colour = QStringLiteral("#107010");
        prefix = QStringLiteral("● ");
        break;
    case Connection::Failed:
        colour = QStringLiteral("#b00020");
        prefix = QStringLiteral("✖ ");
        break;
    }
    m_state->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(colour));
    m_state->setText(prefix + text);
    m_state->setToolTip(text);
}

QString LiveView::connectionText() const { return m_state->text(); }

void LiveView::setBusy(bool busy)
{
    m_cancel->setEnabled(busy);
    m_progress->setVisible(busy);
    if (!busy)
        m_progress->setRange(0, 1);
}

void LiveView::setProgress(int done, int total)
{
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(done);
}

void LiveView::setSummary(const QString& text) { m_summary->setText(text); }
QString LiveView::summary() const { return m_summary->text(); }

void LiveView::setAlerts(const std::vector<LiveAlertRow>& alerts)
{
    m_alerts->clear();
    for (const auto& a : alerts) {
        auto* item = new QTreeWidgetItem(m_alerts, { a.severity, a.rule, a.link, a.message });
        item->setData(0, Qt::UserRole, a.linkId);
        item->setData(0, Qt::UserRole + 1, a.direction);
        item->setToolTip(3, a.message);
        const QColor c = a.severity == QLatin1String("critical") ? QColor(255, 190, 190)
            : a.severity == QLatin1String("warning")             ? QColor(255, 235, 170)
                                                                 : QColor(225, 235, 255);
        item->setBackground(0, c);
    }
    for (int c = 0; c < 3; ++c)
        m_alerts->resizeColumnToContents(c);
}

void LiveView::setRows(std::vector<LiveLinkRow> rows)
{
    // A refresh keeps the chosen row: the same link and direction, found again in the new rows.
    int link = -1, direction = 0;
    const int scrolled = m_table->verticalScrollBar()->value();
    if (const QModelIndex current = m_table->selectionModel()->currentIndex(); current.isValid()) {
        const auto& r = m_model->rows()[std::size_t(m_sorted->mapToSource(current).row())];
        link = r.link;
        direction = r.direction;
    }
    m_model->setRows(std::move(rows));
    if (link < 0) {
        m_table->verticalScrollBar()->setValue(scrolled);
        return;
    }
    const auto& now = m_model->rows();
    for (std::size_t i = 0; i < now.size(); ++i)
        if (now[i].link == link && now[i].direction == direction) {
            const QModelIndex at = m_sorted->mapFromSource(m_model->index(int(i), 0));
            m_restoringSelection = true; // not a new choice: the chart follows the controller's
            m_table->selectionModel()->setCurrentIndex(
                at, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_restoringSelection = false;
            break;
        }
    m_table->verticalScrollBar()->setValue(scrolled);
}

void LiveView::setScene(const FabricSceneData& scene) { m_fabric->updateScene(scene); }
void LiveView::setChart(const LiveChartData& data) { m_chart->setData(data); }
void LiveView::setRecordEnabled(bool on) { m_record->setEnabled(on); }

} // namespace clusterscope::views
