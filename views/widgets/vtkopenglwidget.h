#pragma once

// A QOpenGLWidget hosting a vtkGenericOpenGLRenderWindow: Debian's VTK only ships Qt5 widgets,
// so this is the project's own Qt 6 bridge (see README, "VTK inside Qt 6", for the pitfalls it
// avoids). It owns the render window and an interactor fed from Qt events; callers add renderers.

#include <QOpenGLWidget>

#include <memory>

class vtkGenericOpenGLRenderWindow;
class vtkGenericRenderWindowInteractor;
class vtkRenderer;

namespace clusterscope::views {

class VtkOpenGLWidget : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit VtkOpenGLWidget(QWidget* parent = nullptr);
    ~VtkOpenGLWidget() override;

    vtkGenericOpenGLRenderWindow* renderWindow() const;
    vtkGenericRenderWindowInteractor* interactor() const;
    /// The renderer the widget created (one, filling the view).
    vtkRenderer* renderer() const;

    /// Must be called before the first QApplication is created: VTK needs an OpenGL 3.2 core
    /// context with depth and alpha, and no multisampling on software GL.
    static void setDefaultSurfaceFormat();

    /// Renders now and returns the picture (the framebuffer content) as an image.
    QImage grabPicture();

Q_SIGNALS:
    /// Emitted after each frame VTK renders.
    void frameRendered();

protected:
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private Q_SLOTS:
    void releaseGL();

private:
    void cleanupGL();
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace clusterscope::views
