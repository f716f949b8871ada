#pragma once

// The Fabric 3D tab: the VTK picture of a fabric with camera presets and PNG export, or a plain
// explanation when there is nothing to draw.

#include "views/fabric/fabricscenedata.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStackedWidget;

namespace clusterscope::views {

class FabricScene;
class VtkOpenGLWidget;

class FabricView : public QWidget {
    Q_OBJECT
public:
    explicit FabricView(QWidget* parent = nullptr);
    ~FabricView() override;

    /// Shows `data` (resets the camera).
    void setScene(const FabricSceneData& data);
    /// Shows a message instead of a picture.
    void setEmptyState(const QString& message);

    bool hasScene() const;
    const FabricScene& scene() const { return *m_scene; }
    VtkOpenGLWidget* vtkWidget() const { return m_vtk; }

    /// Renders and returns the current picture.
    QImage grabPicture();

public Q_SLOTS:
    void resetCamera();
    void viewFromTop();
    void viewFromSide();
    /// Asks for a file name and saves the picture as PNG.
    void exportPng();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    std::unique_ptr<FabricScene> m_scene;
    bool m_cameraAuto = true; ///< the camera is where resetCamera() put it (refit on resize)
    VtkOpenGLWidget* m_vtk = nullptr;
    QLabel* m_empty = nullptr;
    QStackedWidget* m_stack = nullptr;
};

} // namespace clusterscope::views
