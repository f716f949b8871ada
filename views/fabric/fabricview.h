#pragma once

// The Fabric 3D tab: the VTK picture of a fabric with camera presets and PNG export, or a plain
// explanation when there is nothing to draw.

#include "views/presentation/fabricscenebuilder.h"
#include "views/presentation/fabricscenedata.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QStackedWidget;

namespace clusterscope::views {

class FabricScene;
class VtkOpenGLWidget;

/// What a click in the 3D view hit: a glyph or a line of the scene.
struct ScenePick {
    bool isLink = false;
    int index = -1; ///< into FabricSceneData::nodes or ::links
};

class FabricView : public QWidget {
    Q_OBJECT
public:
    explicit FabricView(QWidget* parent = nullptr);
    ~FabricView() override;

    /// Shows `data` (resets the camera).
    void setScene(const FabricSceneData& data);
    /// Shows new values of the same fabric (a live refresh): keeps the camera where the user put it
    /// and the details panel of the picked glyph or line, re-read for the new values. The first
    /// scene is shown as setScene() does.
    void updateScene(const FabricSceneData& data);
    /// Builds the scene for a layout (tiers or floor plan); the toolbar's layout choice calls it.
    /// Shows the scene for the current choice at once.
    void setSceneFactory(std::function<FabricSceneData(SceneLayout)> factory);
    SceneLayout layout() const { return m_layout; }
    void setLayout(SceneLayout layout);
    /// Shows a message instead of a picture.
    void setEmptyState(const QString& message);

    bool hasScene() const;
    const FabricScene& scene() const { return *m_scene; }
    VtkOpenGLWidget* vtkWidget() const { return m_vtk; }

    /// Renders and returns the current picture.
    QImage grabPicture();

    /// The glyph or line drawn nearest to widget position `pos` (device-independent pixels of the
    /// 3D widget), within a few pixels; nothing when the click hit empty space.
    std::optional<ScenePick> pickAt(QPoint pos) const;
    /// Where scene node `index` appears in the 3D widget (device-independent pixels).
    QPointF screenPositionOf(int index) const;
    /// Text for the details panel of a pick (rate, load, medium, length, cost, ...). Without a
    /// provider the panel shows what the scene itself knows.
    void setDetailsProvider(std::function<QString(const FabricSceneData&, const ScenePick&)> provider);
    /// The details panel's current text (empty when hidden).
    QString detailsText() const;
    const FabricSceneData& sceneData() const { return m_data; }

Q_SIGNALS:
    void picked(const clusterscope::views::ScenePick& pick);

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
    void showPick(const ScenePick& pick);

    std::unique_ptr<FabricScene> m_scene;
    FabricSceneData m_data;
    std::function<QString(const FabricSceneData&, const ScenePick&)> m_details;
    std::function<FabricSceneData(SceneLayout)> m_factory;
    SceneLayout m_layout = SceneLayout::Tiers;
    QComboBox* m_layoutChoice = nullptr;
    QLabel* m_detailsPanel = nullptr;
    QPoint m_pressPos;
    std::optional<ScenePick> m_pick; ///< what the details panel shows
    bool m_cameraAuto = true; ///< the camera is where resetCamera() put it (refit on resize)
    VtkOpenGLWidget* m_vtk = nullptr;
    QLabel* m_empty = nullptr;
    QStackedWidget* m_stack = nullptr;
};

} // namespace clusterscope::views
