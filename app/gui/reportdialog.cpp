#include "app/gui/reportdialog.h"

#include "app/report/reportbuilder.h"
#include "app/report/reportdocument.h"
#include "app/report/reporthtml.h"
#include "app/report/reportwriter.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdlib>

namespace clusterscope::app {

namespace {

    // `image` cut to the box of pixels that differ from its background (the top-left pixel), with a
    // small margin.
    QImage cropToContent(const QImage& image)
    {
        const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
        const QRgb background = rgb.pixel(0, 0);
        const auto differs = [background](QRgb p) {
            return std::abs(qRed(p) - qRed(background)) + std::abs(qGreen(p) - qGreen(background))
                + std::abs(qBlue(p) - qBlue(background))
                > 24;
        };
        int left = rgb.width(), right = -1, top = rgb.height(), bottom = -1;
        for (int y = 0; y < rgb.height(); ++y) {
            const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
            for (int x = 0; x < rgb.width(); ++x)
                if (differs(line[x])) {
                    left = std::min(left, x);
                    right = std::max(right, x);
                    top = std::min(top, y);
                    bottom = std::max(bottom, y);
                }
        }
        if (right < left || bottom < top)
            return image;
        const int margin = std::max(8, rgb.width() / 100);
        return image.copy(QRect(QPoint(left, top), QPoint(right, bottom))
                              .adjusted(-margin, -margin, margin, margin)
                              .intersected(image.rect()));
    }

} // namespace

namespace {
    struct BuildResult {
        std::shared_ptr<ReportDocument> document;
        QString error;
    };
}

ReportDialog::ReportDialog(const engine::Scenario& subject, const std::vector<engine::Scenario>& others,
    const engine::Catalog& catalog, const engine::PriceBook& prices, std::optional<engine::CalibrationSet> calibration,
    QImage fabricPicture, QWidget* parent, std::optional<engine::ProjectComputeCalibration> computeCalibration,
    std::optional<ReportRun> run)
    : QDialog(parent)
    , m_subject(subject)
    , m_others(others)
    , m_catalog(catalog)
    , m_prices(prices)
    , m_calibration(std::move(calibration))
    , m_computeCalibration(std::move(computeCalibration))
    , m_fabricPicture(std::move(fabricPicture))
    , m_run(std::move(run))
{
    setWindowTitle(tr("Export report — %1").arg(QString::fromStdString(subject.name)));
    resize(1000, 800);
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Compare with:"), this));
    m_compare = new QListWidget(this);
    m_compare->setMaximumHeight(70);
    for (const engine::Scenario& s : m_others) {
        auto* item = new QListWidgetItem(QString::fromStdString(s.name), m_compare);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Unchecked);
    }
    top->addWidget(m_compare, 1);
    auto* rebuild = new QPushButton(tr("Rebuild"), this);
    connect(rebuild, &QPushButton::clicked, this, &ReportDialog::build);
    top->addWidget(rebuild);
    layout->addLayout(top);

    m_preview = new QTextBrowser(this);
    m_preview->setOpenLinks(false);
    layout->addWidget(m_preview, 1);

    auto* bottom = new QHBoxLayout;
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_status = new QLabel(this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    connect(m_cancel, &QPushButton::clicked, this, [this] { m_stop.request_stop(); });
    m_pdf = new QPushButton(tr("Save PDF..."), this);
    m_html = new QPushButton(tr("Save HTML..."), this);
    m_csv = new QPushButton(tr("Save BOM CSV..."), this);
    connect(m_pdf, &QPushButton::clicked, this, [this] {
        saveInteractively(tr("Save report as PDF"), tr("PDF (*.pdf)"), QStringLiteral("pdf"), &ReportDialog::savePdf);
    });
    connect(m_html, &QPushButton::clicked, this, [this] {
        saveInteractively(
            tr("Save report as HTML"), tr("HTML (*.html)"), QStringLiteral("html"), &ReportDialog::saveHtml);
    });
    connect(m_csv, &QPushButton::clicked, this, [this] {
        saveInteractively(
            tr("Save bill of materials"), tr("CSV (*.csv)"), QStringLiteral("csv"), &ReportDialog::saveBomCsv);
    });
    auto* close = new QPushButton(tr("Close"), this);
    connect(close, &QPushButton::clicked, this, &QDialog::accept);
    bottom->addWidget(m_progress);
    bottom->addWidget(m_status, 1);
    bottom->addWidget(m_cancel);
    bottom->addWidget(m_pdf);
    bottom->addWidget(m_html);
    bottom->addWidget(m_csv);
    bottom->addWidget(close);
    layout->addLayout(bottom);
    build();
}

ReportDialog::~ReportDialog()
{
    m_stop.request_stop();
    for (auto* watcher : findChildren<QFutureWatcher<BuildResult>*>()) {
        watcher->disconnect(this);
        watcher->future().waitForFinished();
    }
}

void ReportDialog::build()
{
    if (m_building)
        return;
    m_building = true;
    m_stop = std::stop_source();
    m_document.reset();
    for (QPushButton* b : { m_pdf, m_html, m_csv })
        b->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->setValue(0);
    m_status->setText(tr("Building the report (analysis, fabric, sensitivity)..."));

    ReportInput input;
    input.scenarios.push_back(m_subject);
    for (int i = 0; i < m_compare->count(); ++i)
        if (m_compare->item(i)->checkState() == Qt::Checked)
            input.scenarios.push_back(m_others[std::size_t(i)]);
    input.catalog = &m_catalog;
    input.prices = &m_prices;
    input.sourceName = tr("ClusterScope project");
    input.calibration = m_calibration;
    input.calibrationName = QStringLiteral("nccl-tests");
    input.computeCalibration = m_computeCalibration;
    input.run = m_run;
    if (!m_fabricPicture.isNull()) {
        // The 3D view's empty margins would shrink the fabric and its labels on the page.
        const QImage picture = cropToContent(m_fabricPicture);
        const std::string subject = m_subject.name;
        input.fabricPicture = [picture, subject](const engine::Scenario& s, const engine::FabricDesign&) {
            return s.name == subject ? picture : QImage();
        };
    }
    input.stop = m_stop.get_token();
    QPointer<QProgressBar> bar(m_progress);
    input.progress = [bar](double f) {
        QMetaObject::invokeMethod(
            bar.data(),
            [bar, f] {
                if (bar)
                    bar->setValue(int(f * 100));
            },
            Qt::QueuedConnection);
    };

    auto* watcher = new QFutureWatcher<BuildResult>(this);
    connect(watcher, &QFutureWatcher<BuildResult>::finished, this, [this, watcher] {
        BuildResult result = watcher->result();
        watcher->deleteLater();
        m_building = false;
        m_cancel->setEnabled(false);
        if (!result.document) {
            m_status->setText(result.error);
            m_preview->setPlainText(result.error);
            return;
        }
        m_document = result.document;
        fillTextDocument(*m_document, *m_preview->document());
        m_progress->setValue(100);
        m_status->setText(tr("Ready: save it as PDF, HTML or CSV."));
        for (QPushButton* b : { m_pdf, m_html, m_csv })
            b->setEnabled(true);
    });
    watcher->setFuture(QtConcurrent::run([input]() -> BuildResult {
        auto doc = buildReport(input);
        if (!doc)
            return { nullptr, QString::fromStdString(doc.message()) };
        return { std::make_shared<ReportDocument>(std::move(*doc)), {} };
    }));
}

void ReportDialog::waitUntilBuilt()
{
    while (m_building)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

QString ReportDialog::previewText() const { return m_preview->toPlainText(); }

std::optional<QString> ReportDialog::savePdf(const QString& path)
{
    if (!m_document)
        return tr("The report is not built yet.");
    auto pages = writePdf(*m_document, path);
    if (!pages)
        return QString::fromStdString(pages.message());
    return std::nullopt;
}

std::optional<QString> ReportDialog::saveHtml(const QString& path)
{
    if (!m_document)
        return tr("The report is not built yet.");
    if (auto s = writeHtml(*m_document, path); !s)
        return QString::fromStdString(s.message());
    return std::nullopt;
}

std::optional<QString> ReportDialog::saveBomCsv(const QString& path)
{
    if (!m_document)
        return tr("The report is not built yet.");
    if (auto s = writeBomCsv(*m_document, path); !s)
        return QString::fromStdString(s.message());
    return std::nullopt;
}

void ReportDialog::saveInteractively(const QString& title, const QString& filter, const QString& suffix,
    std::optional<QString> (ReportDialog::*save)(const QString&))
{
    QString path = QFileDialog::getSaveFileName(this, title,
        QString::fromStdString(m_subject.name).replace(QLatin1Char('/'), QLatin1Char('-')) + QLatin1Char('.') + suffix,
        filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QLatin1Char('.') + suffix;
    if (auto error = (this->*save)(path))
        QMessageBox::warning(this, tr("Save failed"), *error);
    else
        m_status->setText(tr("Saved %1").arg(path));
}

} // namespace clusterscope::app
