#include "views/fabric/fabricview.h"

#include "views/fabric/fabricscene.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QLabel>
#include <QLineF>
#include <QMessageBox>
#include <QMouseEvent>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

#include <vtkCamera.h>
#include <vtkRenderer.h>

namespace clusterscope::views {

FabricView::FabricView(QWidget* parent)
    : QWidget(parent)
    , m_scene(std::make_unique<FabricScene>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* tools = new QToolBar(this);
    tools->addAction(tr("Reset camera"), this, &FabricView::resetCamera)->setToolTip(tr("Show the whole fabric (R)"));
    tools->addAction(tr("Top"), this, &FabricView::viewFromTop)->setToolTip(tr("Look down on the floor plan"));
    tools->addAction(tr("Side"), this, &FabricView::viewFromSide)->setToolTip(tr("Look at the tiers from the side"));
    tools->addSeparator();
    tools->addAction(tr("Export PNG..."), this, &FabricView::exportPng);
    tools->addSeparator();
    m_layoutChoice = new QComboBox(tools);
    m_layoutChoice->addItem(tr("Tiers"));
    m_layoutChoice->addItem(tr("Floor plan (racks)"));
    m_layoutChoice->setToolTip(tr("Tiers: servers below, each switch tier a level above. Floor plan: every server and "
                                  "switch in its rack, racks in rows, as the physical layout places them."));
    connect(m_layoutChoice, &QComboBox::currentIndexChanged, this,
        [this](int i) { setLayout(i == 1 ? SceneLayout::Floor : SceneLayout::Tiers); });
    tools->addWidget(m_layoutChoice);
    layout->addWidget(tools);

    m_stack = new QStackedWidget(this);
    m_vtk = new VtkOpenGLWidget(m_stack);
    m_empty = new QLabel(m_stack);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(24);
    m_vtk->installEventFilter(this);
    m_stack->addWidget(m_vtk);
    m_detailsPanel = new QLabel(m_vtk);
    m_detailsPanel->setStyleSheet(QStringLiteral(
        "QLabel { background: rgba(255,255,255,235); border: 1px solid #8a94a6; border-radius: 4px; padding: 8px; }"));
    m_detailsPanel->setTextFormat(Qt::RichText);
    m_detailsPanel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detailsPanel->hide();
    m_stack->addWidget(m_empty);
    layout->addWidget(m_stack, 1);
    setEmptyState(tr("No fabric to draw yet."));
}

FabricView::~FabricView() = default;

void FabricView::setScene(const FabricSceneData& data)
{
    m_data = data;
    m_scene->build(data, m_vtk->renderer());
    m_stack->setCurrentWidget(m_vtk);
    m_detailsPanel->hide();
    m_pick.reset();
    resetCamera();
}

void FabricView::updateScene(const FabricSceneData& data)
{
    const bool same
        = hasScene() && data.nodes.size() == m_data.nodes.size() && data.links.size() == m_data.links.size();
    if (!same)
        return setScene(data);
    m_data = data;
    // The scene builder places the camera for a new fabric: put the user's camera back.
    vtkCamera* camera = m_vtk->renderer()->GetActiveCamera();
    double position[3], focal[3], up[3], center[2], clipping[2];
    camera->GetPosition(position);
    camera->GetFocalPoint(focal);
    camera->GetViewUp(up);
    camera->GetWindowCenter(center);
    camera->GetClippingRange(clipping);
    const double angle = camera->GetViewAngle(), scale = camera->GetParallelScale();
    m_scene->build(data, m_vtk->renderer());
    camera->SetPosition(position);
    camera->SetFocalPoint(focal);
    camera->SetViewUp(up);
    camera->SetWindowCenter(center[0], center[1]);
    camera->SetViewAngle(angle);
    camera->SetParallelScale(scale);
    camera->SetClippingRange(clipping);
    if (m_pick && m_detailsPanel->isVisible())
        showPick(*m_pick);
    m_vtk->update();
}

void FabricView::setEmptyState(const QString& message)
{
    m_empty->setText(message);
    m_stack->setCurrentWidget(m_empty);
}

bool FabricView::hasScene() const { return m_stack->currentWidget() == m_vtk; }

void FabricView::setSceneFactory(std::function<FabricSceneData(SceneLayout)> factory)
{
    m_factory = std::move(factory);
    setScene(m_factory(m_layout));
}

void FabricView::setLayout(SceneLayout layout)
{
    m_layout = layout;
    const QSignalBlocker block(m_layoutChoice);
    m_layoutChoice->setCurrentIndex(layout == SceneLayout::Floor ? 1 : 0);
    if (m_factory && hasScene())
        setScene(m_factory(m_layout));
}

QImage FabricView::grabPicture() { return m_vtk->grabPicture(); }

void FabricView::resetCamera()
{
    vtkCamera* camera = m_vtk->renderer()->GetActiveCamera();
    camera->SetFocalPoint(0, 0, 0);
    camera->SetPosition(0.35, -1.0, 0.55);
    camera->SetViewUp(0, 0, 1);
    vtkRenderer* renderer = m_vtk->renderer();
    renderer->ResetCamera();
    camera->SetWindowCenter(0, 0);
    // ResetCamera fits the scene's bounding sphere; fit its projected box instead into the part of
    // the view the overlays leave free (the colour bar takes the right ~12%, title and legend a
    // strip at the top and bottom), whatever the view's aspect.
    double b[6];
    renderer->ComputeVisiblePropBounds(b);
    const int* size = renderer->GetSize();
    const double width = size[0], height = size[1];
    if (b[0] <= b[1] && width > 0 && height > 0) {
        const auto project = [&](double& x0, double& x1, double& y0, double& y1) {
            x0 = y0 = std::numeric_limits<double>::max();
            x1 = y1 = std::numeric_limits<double>::lowest();
            for (int i = 0; i < 8; ++i) {
                renderer->SetWorldPoint(b[i & 1], b[2 + ((i >> 1) & 1)], b[4 + ((i >> 2) & 1)], 1.0);
                renderer->WorldToDisplay();
                const double* d = renderer->GetDisplayPoint();
                x0 = std::min(x0, d[0]);
                x1 = std::max(x1, d[0]);
                y0 = std::min(y0, d[1]);
                y1 = std::max(y1, d[1]);
            }
        };
        double x0, x1, y0, y1;
        project(x0, x1, y0, y1);
        if (x1 > x0 && y1 > y0) {
            camera->Zoom(std::clamp(std::min(0.82 * width / (x1 - x0), 0.78 * height / (y1 - y0)), 0.2, 5.0));
            project(x0, x1, y0, y1);
            // Centre the box at 44% of the width and 47% of the height (display y grows upwards).
            camera->SetWindowCenter(
                2.0 * ((x0 + x1) / 2 - 0.44 * width) / width, 2.0 * ((y0 + y1) / 2 - 0.47 * height) / height);
        }
    }
    m_cameraAuto = true;
    m_vtk->update();
}

bool FabricView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_vtk && (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::Wheel))
        m_cameraAuto = false; // the user moved the camera: keep it through resizes
    if (watched == m_vtk && event->type() == QEvent::MouseButtonPress)
        m_pressPos = static_cast<QMouseEvent*>(event)->position().toPoint();
    if (watched == m_vtk && event->type() == QEvent::MouseButtonRelease) {
        auto* mouse = static_cast<QMouseEvent*>(event);
        // A click (not a drag that rotated the camera) picks what is under the cursor.
        if (mouse->button() == Qt::LeftButton && (mouse->position().toPoint() - m_pressPos).manhattanLength() <= 4) {
            if (const auto pick = pickAt(mouse->position().toPoint())) {
                showPick(*pick);
                Q_EMIT picked(*pick);
            } else {
                m_detailsPanel->hide();
                m_pick.reset();
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

std::optional<ScenePick> FabricView::pickAt(QPoint pos) const
{
    if (!hasScene() || m_data.nodes.empty())
        return std::nullopt;
    std::vector<QPointF> screen(m_data.nodes.size());
    for (std::size_t i = 0; i < m_data.nodes.size(); ++i)
        screen[i] = screenPositionOf(int(i));
    const QPointF p(pos);
    constexpr double kNodeRadius = 12.0, kLineRadius = 5.0;
    std::optional<ScenePick> best;
    double bestDistance = kNodeRadius;
    for (std::size_t i = 0; i < screen.size(); ++i) {
        const double d = QLineF(p, screen[i]).length();
        if (d < bestDistance) {
            bestDistance = d;
            best = ScenePick { false, int(i) };
        }
    }
    if (best)
        return best; // glyphs win over the lines that end at them
    bestDistance = kLineRadius;
    for (std::size_t i = 0; i < m_data.links.size(); ++i) {
        const QPointF a = screen[std::size_t(m_data.links[i].from)], b = screen[std::size_t(m_data.links[i].to)];
        const QPointF ab = b - a;
        const double lengthSquared = QPointF::dotProduct(ab, ab);
        const double t = lengthSquared > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / lengthSquared, 0.0, 1.0) : 0.0;
        const double d = QLineF(p, a + t * ab).length();
        if (d < bestDistance) {
            bestDistance = d;
            best = ScenePick { true, int(i) };
        }
    }
    return best;
}

QPointF FabricView::screenPositionOf(int index) const
{
    const SceneNode& n = m_data.nodes.at(std::size_t(index));
    vtkRenderer* renderer = m_vtk->renderer();
    const double dpr = m_vtk->devicePixelRatioF();
    renderer->SetWorldPoint(n.x, n.y, n.z, 1.0);
    renderer->WorldToDisplay();
    double d[3];
    renderer->GetDisplayPoint(d);
    // VTK's display y grows upwards, Qt's downwards.
    return QPointF(d[0] / dpr, (m_vtk->height() * dpr - d[1]) / dpr);
}

void FabricView::setDetailsProvider(std::function<QString(const FabricSceneData&, const ScenePick&)> provider)
{
    m_details = std::move(provider);
}

QString FabricView::detailsText() const { return m_detailsPanel->isVisible() ? m_detailsPanel->text() : QString(); }

void FabricView::showPick(const ScenePick& pick)
{
    m_pick = pick;
    QString text;
    if (m_details) {
        text = m_details(m_data, pick);
    } else if (pick.isLink) {
        const SceneLink& l = m_data.links[std::size_t(pick.index)];
        text = tr("<b>Link</b> %1 – %2<br>utilisation %3")
                   .arg(QString::fromStdString(m_data.nodes[std::size_t(l.from)].label),
                       QString::fromStdString(m_data.nodes[std::size_t(l.to)].label),
                       l.value >= 0 ? QString::number(l.value * 100, 'f', 1) + QLatin1Char('%') : tr("unknown"));
    } else {
        text = QStringLiteral("<b>%1</b>")
                   .arg(QString::fromStdString(m_data.nodes[std::size_t(pick.index)].label).toHtmlEscaped());
    }
    m_detailsPanel->setText(text);
    m_detailsPanel->adjustSize();
    m_detailsPanel->move(m_vtk->width() - m_detailsPanel->width() - 110, 40);
    m_detailsPanel->show();
    m_detailsPanel->raise();
}

void FabricView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_cameraAuto && hasScene())
        resetCamera();
}

void FabricView::viewFromTop()
{
    vtkCamera* camera = m_vtk->renderer()->GetActiveCamera();
    camera->SetFocalPoint(0, 0, 0);
    camera->SetPosition(0, 0, 1);
    camera->SetViewUp(0, 1, 0);
    m_vtk->renderer()->ResetCamera();
    m_vtk->update();
}

void FabricView::viewFromSide()
{
    vtkCamera* camera = m_vtk->renderer()->GetActiveCamera();
    camera->SetFocalPoint(0, 0, 0);
    camera->SetPosition(0, -1, 0);
    camera->SetViewUp(0, 0, 1);
    m_vtk->renderer()->ResetCamera();
    m_vtk->update();
}

void FabricView::exportPng()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export fabric picture"), QStringLiteral("fabric.png"), tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!grabPicture().save(path, "PNG"))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1.").arg(path));
}

} // namespace clusterscope::views
