#include "views/fabric/fabricview.h"

#include "views/fabric/fabricscene.h"
#include "views/widgets/vtkopenglwidget.h"

#include <QEvent>
#include <QFileDialog>
#include <QLabel>
#include <QMessageBox>
#include <QStackedWidget>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

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
    layout->addWidget(tools);

    m_stack = new QStackedWidget(this);
    m_vtk = new VtkOpenGLWidget(m_stack);
    m_empty = new QLabel(m_stack);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->setMargin(24);
    m_vtk->installEventFilter(this);
    m_stack->addWidget(m_vtk);
    m_stack->addWidget(m_empty);
    layout->addWidget(m_stack, 1);
    setEmptyState(tr("No fabric to draw yet."));
}

FabricView::~FabricView() = default;

void FabricView::setScene(const FabricSceneData& data)
{
    m_scene->build(data, m_vtk->renderer());
    m_stack->setCurrentWidget(m_vtk);
    resetCamera();
}

void FabricView::setEmptyState(const QString& message)
{
    m_empty->setText(message);
    m_stack->setCurrentWidget(m_empty);
}

bool FabricView::hasScene() const { return m_stack->currentWidget() == m_vtk; }

QImage FabricView::grabPicture() { return m_vtk->grabPicture(); }

void FabricView::resetCamera()
{
    vtkCamera* camera = m_vtk->renderer()->GetActiveCamera();
    camera->SetFocalPoint(0, 0, 0);
    camera->SetPosition(0.35, -1.0, 0.55);
    camera->SetViewUp(0, 0, 1);
    m_vtk->renderer()->ResetCamera();
    // ResetCamera fits the scene's bounding sphere vertically; a narrow view needs to back off so
    // the wide tiers are not cut at the sides (1.6 is the aspect of the default tiers picture).
    const double aspect = m_vtk->height() > 0 ? double(m_vtk->width()) / m_vtk->height() : 1.6;
    camera->Zoom(std::clamp(aspect / 1.6 * 1.55, 0.6, 1.4));
    m_cameraAuto = true;
    m_vtk->update();
}

bool FabricView::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_vtk && (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::Wheel))
        m_cameraAuto = false; // the user moved the camera: keep it through resizes
    return QWidget::eventFilter(watched, event);
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
    const QString path = QFileDialog::getSaveFileName(this, tr("Export fabric picture"), QStringLiteral("fabric.png"),
        tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    if (!grabPicture().save(path, "PNG"))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1.").arg(path));
}

} // namespace clusterscope::views
