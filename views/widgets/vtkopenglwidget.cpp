#include "views/widgets/vtkopenglwidget.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QWheelEvent>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkNew.h>
#include <vtkOpenGLState.h>
#include <vtkRenderer.h>
#include <vtkSmartPointer.h>

namespace clusterscope::views {

struct VtkOpenGLWidget::Private {
    vtkNew<vtkGenericOpenGLRenderWindow> window;
    vtkNew<vtkGenericRenderWindowInteractor> interactor;
    vtkNew<vtkRenderer> renderer;
    vtkNew<vtkCallbackCommand> makeCurrent;
    vtkNew<vtkCallbackCommand> isCurrent;
    vtkNew<vtkCallbackCommand> frame;
    bool inPaint = false;
};

namespace {
    // VTK asks to make its context current: make Qt's context current on its surface. NOT
    // QOpenGLWidget::makeCurrent(), which rebinds Qt's framebuffer behind VTK's GL-state cache.
    void onMakeCurrent(vtkObject*, unsigned long, void* clientData, void*)
    {
        auto* w = static_cast<VtkOpenGLWidget*>(clientData);
        if (QOpenGLContext* c = w->context())
            c->makeCurrent(c->surface());
    }

    void onIsCurrent(vtkObject*, unsigned long, void* clientData, void* callData)
    {
        auto* w = static_cast<VtkOpenGLWidget*>(clientData);
        *static_cast<bool*>(callData) = w->context() && QOpenGLContext::currentContext() == w->context();
    }
} // namespace

VtkOpenGLWidget::VtkOpenGLWidget(QWidget* parent)
    : QOpenGLWidget(parent)
    , d(std::make_unique<Private>())
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setMinimumSize(200, 150);

    d->window->SetReadyForRendering(false);
    d->window->SetFrameBlitModeToNoBlit();
    d->window->SetOwnContext(false);
    d->window->SetMultiSamples(0); // ~4x cheaper on software GL (llvmpipe)
    d->window->AddRenderer(d->renderer);
    d->window->SetInteractor(d->interactor);
    d->interactor->SetRenderWindow(d->window);
    d->interactor->EnableRenderOff(); // Qt decides when to paint
    vtkNew<vtkInteractorStyleTrackballCamera> style;
    d->interactor->SetInteractorStyle(style);

    d->makeCurrent->SetClientData(this);
    d->makeCurrent->SetCallback(onMakeCurrent);
    d->window->AddObserver(vtkCommand::WindowMakeCurrentEvent, d->makeCurrent);
    d->isCurrent->SetClientData(this);
    d->isCurrent->SetCallback(onIsCurrent);
    d->window->AddObserver(vtkCommand::WindowIsCurrentEvent, d->isCurrent);
    d->frame->SetClientData(this);
    d->frame->SetCallback([](vtkObject*, unsigned long, void* clientData, void*) {
        auto* w = static_cast<VtkOpenGLWidget*>(clientData);
        // A frame VTK rendered outside paintGL (interaction): ask Qt to show it.
        if (!w->d->inPaint)
            w->update();
    });
    d->window->AddObserver(vtkCommand::WindowFrameEvent, d->frame);
}

VtkOpenGLWidget::~VtkOpenGLWidget()
{
    // QOpenGLWidget destroys the context after this body, when `d` is gone: stop listening first.
    if (context())
        disconnect(context(), nullptr, this, nullptr);
    makeCurrent();
    cleanupGL();
    doneCurrent();
}

vtkGenericOpenGLRenderWindow* VtkOpenGLWidget::renderWindow() const { return d->window; }
vtkGenericRenderWindowInteractor* VtkOpenGLWidget::interactor() const { return d->interactor; }
vtkRenderer* VtkOpenGLWidget::renderer() const { return d->renderer; }

void VtkOpenGLWidget::setDefaultSurfaceFormat()
{
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 2);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(8);
    format.setAlphaBufferSize(8);
    format.setStencilBufferSize(0);
    format.setSamples(0);
    format.setSwapBehavior(QSurfaceFormat::DoubleBuffer);
    QSurfaceFormat::setDefaultFormat(format);
}

void VtkOpenGLWidget::releaseGL()
{
    // Qt is about to destroy the context (widget reparented or closed): VTK must let go of its
    // GL resources while the context still exists.
    makeCurrent();
    cleanupGL();
    doneCurrent();
}

void VtkOpenGLWidget::cleanupGL()
{
    if (d->window->GetReadyForRendering()) {
        d->window->Finalize();
        d->window->SetReadyForRendering(false);
    }
}

void VtkOpenGLWidget::initializeGL()
{
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &VtkOpenGLWidget::releaseGL, Qt::UniqueConnection);
    d->window->SetReadyForRendering(true);
    d->window->SetOwnContext(false);
    d->window->OpenGLInitContext();
    const qreal dpr = devicePixelRatioF();
    d->window->SetSize(int(width() * dpr), int(height() * dpr));
}

void VtkOpenGLWidget::resizeGL(int w, int h)
{
    const qreal dpr = devicePixelRatioF();
    const int pw = int(w * dpr), ph = int(h * dpr);
    d->window->SetSize(pw, ph);
    d->interactor->UpdateSize(pw, ph);
    d->window->SetScreenSize(pw, ph);
}

void VtkOpenGLWidget::paintGL()
{
    if (!d->window->GetReadyForRendering())
        return;
    d->inPaint = true;
    vtkOpenGLState* state = d->window->GetState();
    state->Reset();
    state->Push();
    state->vtkglDepthFunc(GL_LEQUAL); // Qt leaves GL_LESS
    d->window->Render();

    // Blit VTK's frame into Qt's framebuffer object.
    const QSize deviceSize = size() * devicePixelRatioF();
    state->vtkglBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
    d->window->BlitDisplayFramebuffer(0, 0, 0, deviceSize.width(), deviceSize.height(), 0, 0, deviceSize.width(),
        deviceSize.height(), GL_COLOR_BUFFER_BIT, GL_NEAREST);

    // Force alpha to 1, or Mesa composes the widget translucently.
    QOpenGLFunctions* f = context()->functions();
    f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
    f->glClearColor(0, 0, 0, 1);
    f->glClear(GL_COLOR_BUFFER_BIT);
    f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    state->Pop();
    d->inPaint = false;
    Q_EMIT frameRendered();
}

QImage VtkOpenGLWidget::grabPicture() { return grabFramebuffer(); }

namespace {
    void feedPosition(vtkGenericRenderWindowInteractor* i, QWidget* w, QPointF pos, Qt::KeyboardModifiers mods)
    {
        const qreal dpr = w->devicePixelRatioF();
        i->SetEventInformationFlipY(int(pos.x() * dpr), int(pos.y() * dpr), (mods & Qt::ControlModifier) ? 1 : 0,
            (mods & Qt::ShiftModifier) ? 1 : 0);
    }
} // namespace

void VtkOpenGLWidget::mousePressEvent(QMouseEvent* event)
{
    feedPosition(d->interactor, this, event->position(), event->modifiers());
    switch (event->button()) {
    case Qt::LeftButton:
        d->interactor->InvokeEvent(vtkCommand::LeftButtonPressEvent);
        break;
    case Qt::RightButton:
        d->interactor->InvokeEvent(vtkCommand::RightButtonPressEvent);
        break;
    case Qt::MiddleButton:
        d->interactor->InvokeEvent(vtkCommand::MiddleButtonPressEvent);
        break;
    default:
        break;
    }
    update();
}

void VtkOpenGLWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    feedPosition(d->interactor, this, event->position(), event->modifiers());
    d->interactor->SetRepeatCount(1);
    if (event->button() == Qt::LeftButton)
        d->interactor->InvokeEvent(vtkCommand::LeftButtonDoubleClickEvent);
    d->interactor->SetRepeatCount(0);
    update();
}

void VtkOpenGLWidget::mouseReleaseEvent(QMouseEvent* event)
{
    feedPosition(d->interactor, this, event->position(), event->modifiers());
    switch (event->button()) {
    case Qt::LeftButton:
        d->interactor->InvokeEvent(vtkCommand::LeftButtonReleaseEvent);
        break;
    case Qt::RightButton:
        d->interactor->InvokeEvent(vtkCommand::RightButtonReleaseEvent);
        break;
    case Qt::MiddleButton:
        d->interactor->InvokeEvent(vtkCommand::MiddleButtonReleaseEvent);
        break;
    default:
        break;
    }
    update();
}

void VtkOpenGLWidget::mouseMoveEvent(QMouseEvent* event)
{
    feedPosition(d->interactor, this, event->position(), event->modifiers());
    d->interactor->InvokeEvent(vtkCommand::MouseMoveEvent);
    update();
}

void VtkOpenGLWidget::wheelEvent(QWheelEvent* event)
{
    feedPosition(d->interactor, this, event->position(), event->modifiers());
    const int delta = event->angleDelta().y();
    if (delta > 0)
        d->interactor->InvokeEvent(vtkCommand::MouseWheelForwardEvent);
    else if (delta < 0)
        d->interactor->InvokeEvent(vtkCommand::MouseWheelBackwardEvent);
    update();
}

void VtkOpenGLWidget::keyPressEvent(QKeyEvent* event)
{
    // Forward only the harmless trackball keys (r reset camera, w wireframe, s surface): VTK's
    // defaults also bind e/q (exit) and 3 (stereo), which must not reach it from a desktop app.
    const QByteArray text = event->text().toLatin1();
    if (text.size() != 1 || !QByteArrayView("rws").contains(text.at(0))) {
        QOpenGLWidget::keyPressEvent(event);
        return;
    }
    d->interactor->SetKeyEventInformation(event->modifiers() & Qt::ControlModifier,
        event->modifiers() & Qt::ShiftModifier, text.isEmpty() ? 0 : text.at(0), 0, nullptr);
    d->interactor->InvokeEvent(vtkCommand::KeyPressEvent);
    d->interactor->InvokeEvent(vtkCommand::CharEvent);
    update();
}

} // namespace clusterscope::views
