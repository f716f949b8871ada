#include "views/fabric/fabricscene.h"
#include "views/presentation/tiernames.h"

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCubeSource.h>
#include <vtkFloatArray.h>
#include <vtkGlyph3DMapper.h>
#include <vtkLegendBoxActor.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSmartPointer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>

#include <vector>

namespace clusterscope::views {

struct FabricScene::Actors {
    std::vector<vtkSmartPointer<vtkProp>> props;
};

FabricScene::FabricScene()
    : m_actors(std::make_unique<Actors>())
{
}

FabricScene::~FabricScene() = default;

std::array<double, 3> FabricScene::kindColour(SceneNodeKind kind)
{
    switch (kind) {
    case SceneNodeKind::Node:
        return { 0.30, 0.69, 0.31 }; // green: GPU nodes
    case SceneNodeKind::Leaf:
        return { 0.13, 0.59, 0.95 }; // blue
    case SceneNodeKind::Spine:
        return { 1.00, 0.60, 0.00 }; // orange
    case SceneNodeKind::Core:
        return { 0.61, 0.15, 0.69 }; // purple
    case SceneNodeKind::Other:
        return { 0.47, 0.47, 0.47 };
    }
    return { 0.5, 0.5, 0.5 };
}

namespace {

    constexpr double kFlagColour[3] = { 0.9, 0.0, 0.35 }; // flagged links and switches: magenta-red

    std::string kindName(SceneNodeKind kind)
    {
        switch (kind) {
        case SceneNodeKind::Node:
            return "GPU nodes";
        case SceneNodeKind::Leaf:
            return switchTierLabel(engine::kTierLeaf).toStdString();
        case SceneNodeKind::Spine:
            return switchTierLabel(engine::kTierSpine).toStdString();
        case SceneNodeKind::Core:
            return switchTierLabel(engine::kTierCore).toStdString();
        case SceneNodeKind::Other:
            return "Appliances, other";
        }
        return "";
    }

    vtkSmartPointer<vtkLookupTable> utilisationColours()
    {
        // Blue (idle) through green and yellow to red (saturated), the usual heat ordering.
        auto lut = vtkSmartPointer<vtkLookupTable>::New();
        lut->SetHueRange(0.66, 0.0);
        lut->SetSaturationRange(0.85, 0.85);
        lut->SetValueRange(0.9, 0.9);
        lut->SetTableRange(0.0, 100.0);
        lut->SetNumberOfTableValues(256);
        lut->Build();
        return lut;
    }

    vtkSmartPointer<vtkActor> linkActor(
        const FabricSceneData& data, vtkPoints* points, int which, vtkLookupTable* lut, int& count)
    {
        // which: 0 links with a value (coloured by it), 1 links without a value (grey), 2 flagged links,
        // 3 links at or above the 95 % peak guideline (coloured, drawn thicker so one hot line shows
        // among hundreds).
        vtkNew<vtkCellArray> lines;
        vtkNew<vtkFloatArray> values;
        values->SetName("utilisation");
        for (const SceneLink& l : data.links) {
            const int kind = l.flagged ? 2 : (l.value >= 0.95f ? 3 : (l.value >= 0 ? 0 : 1));
            if (kind != which)
                continue;
            const vtkIdType ids[2] = { l.from, l.to };
            lines->InsertNextCell(2, ids);
            values->InsertNextValue(l.value * 100.0f); // percent, for the scalar bar labels
            ++count;
        }
        if (lines->GetNumberOfCells() == 0)
            return nullptr;
        vtkNew<vtkPolyData> poly;
        poly->SetPoints(points);
        poly->SetLines(lines);
        poly->GetCellData()->SetScalars(values);
        vtkNew<vtkPolyDataMapper> mapper;
        mapper->SetInputData(poly);
        auto actor = vtkSmartPointer<vtkActor>::New();
        actor->SetMapper(mapper);
        if (which == 0 || which == 3) {
            mapper->SetLookupTable(lut);
            mapper->SetScalarRange(0.0, 100.0);
            mapper->SetScalarModeToUseCellData();
            mapper->ScalarVisibilityOn();
            actor->GetProperty()->SetLineWidth(which == 3 ? 5.0 : 2.0);
        } else {
            mapper->ScalarVisibilityOff();
            if (which == 1) {
                actor->GetProperty()->SetColor(0.55, 0.58, 0.62);
                actor->GetProperty()->SetOpacity(0.55);
                actor->GetProperty()->SetLineWidth(1.0);
            } else {
                actor->GetProperty()->SetColor(kFlagColour[0], kFlagColour[1], kFlagColour[2]);
                actor->GetProperty()->SetLineWidth(5.0);
            }
        }
        actor->GetProperty()->LightingOff();
        return actor;
    }

} // namespace

void FabricScene::build(const FabricSceneData& data, vtkRenderer* renderer)
{
    for (auto& prop : m_actors->props)
        renderer->RemoveViewProp(prop);
    m_actors->props.clear();
    m_glyphCounts = {};
    m_linkCount = 0;
    m_flaggedNodes = 0;

    renderer->SetBackground(0.97, 0.97, 0.98);
    renderer->SetBackground2(0.85, 0.88, 0.92);
    renderer->GradientBackgroundOn();

    vtkNew<vtkPoints> allPoints;
    allPoints->SetNumberOfPoints(static_cast<vtkIdType>(data.nodes.size()));
    for (std::size_t i = 0; i < data.nodes.size(); ++i)
        allPoints->SetPoint(static_cast<vtkIdType>(i), data.nodes[i].x, data.nodes[i].y, data.nodes[i].z);

    vtkNew<vtkLegendBoxActor> legend;
    int legendEntries = 0;
    for (int k = 0; k < 5; ++k) {
        const auto kind = static_cast<SceneNodeKind>(k);
        vtkNew<vtkPoints> points;
        for (const SceneNode& n : data.nodes)
            if (n.kind == kind)
                points->InsertNextPoint(n.x, n.y, n.z);
        m_glyphCounts[k] = static_cast<int>(points->GetNumberOfPoints());
        if (points->GetNumberOfPoints() == 0)
            continue;
        vtkNew<vtkPolyData> poly;
        poly->SetPoints(points);
        vtkNew<vtkCubeSource> box;
        // Nodes are servers (deeper than wide); switches are flat 1U boxes. On the floor plan the
        // boxes have rack-mount sizes (19" rack: 0.48 m wide, 1 U = 44.45 mm; an HGX server ~8 U).
        if (data.physicalSizes) {
            box->SetXLength(0.48);
            box->SetYLength(0.8);
            box->SetZLength(kind == SceneNodeKind::Node ? 8 * 0.04445 : 0.04445);
        } else if (kind == SceneNodeKind::Node) {
            box->SetXLength(0.5);
            box->SetYLength(0.8);
            box->SetZLength(0.35);
        } else {
            box->SetXLength(0.9);
            box->SetYLength(0.9);
            box->SetZLength(0.25);
        }
        vtkNew<vtkGlyph3DMapper> mapper;
        mapper->SetInputData(poly);
        mapper->SetSourceConnection(box->GetOutputPort());
        mapper->ScalingOff();
        mapper->OrientOff();
        auto actor = vtkSmartPointer<vtkActor>::New();
        actor->SetMapper(mapper);
        const auto c = kindColour(kind);
        actor->GetProperty()->SetColor(c[0], c[1], c[2]);
        actor->GetProperty()->SetAmbient(0.35);
        actor->GetProperty()->SetDiffuse(0.75);
        renderer->AddActor(actor);
        m_actors->props.push_back(actor);
        ++legendEntries;
    }
    // Flagged switches (an imported fabric's checks): a slightly larger box in the flag colour
    // around the glyph, so it stands out whatever its tier colour.
    vtkNew<vtkPoints> flaggedPoints;
    for (const SceneNode& n : data.nodes)
        if (n.flagged)
            flaggedPoints->InsertNextPoint(n.x, n.y, n.z);
    m_flaggedNodes = static_cast<int>(flaggedPoints->GetNumberOfPoints());
    if (m_flaggedNodes > 0) {
        vtkNew<vtkPolyData> poly;
        poly->SetPoints(flaggedPoints);
        vtkNew<vtkCubeSource> box;
        box->SetXLength(data.physicalSizes ? 0.56 : 1.3);
        box->SetYLength(data.physicalSizes ? 0.9 : 1.3);
        box->SetZLength(data.physicalSizes ? 0.08 : 0.45);
        vtkNew<vtkGlyph3DMapper> mapper;
        mapper->SetInputData(poly);
        mapper->SetSourceConnection(box->GetOutputPort());
        mapper->ScalingOff();
        mapper->OrientOff();
        auto actor = vtkSmartPointer<vtkActor>::New();
        actor->SetMapper(mapper);
        actor->GetProperty()->SetColor(kFlagColour[0], kFlagColour[1], kFlagColour[2]);
        actor->GetProperty()->SetOpacity(0.85);
        actor->GetProperty()->LightingOff();
        renderer->AddActor(actor);
        m_actors->props.push_back(actor);
        ++legendEntries;
    }
    int flaggedLines = 0;
    for (const SceneLink& l : data.links)
        flaggedLines += l.flagged ? 1 : 0;
    const bool flagLegend = m_flaggedNodes == 0 && flaggedLines > 0 && !data.flagLegend.empty();
    legendEntries += flagLegend ? 1 : 0;
    legend->SetNumberOfEntries(legendEntries);
    int entry = 0;
    for (int k = 0; k < 5; ++k) {
        if (m_glyphCounts[k] == 0)
            continue;
        const auto kind = static_cast<SceneNodeKind>(k);
        const auto c = kindColour(kind);
        double colour[3] = { c[0], c[1], c[2] };
        vtkNew<vtkCubeSource> symbol;
        symbol->Update();
        std::string text = kindName(kind) + " (" + std::to_string(m_glyphCounts[k]) + ")";
        if (kind == SceneNodeKind::Node && data.serversPerGlyph > 1) // level of detail: say what a glyph is
            text = "Server groups of up to " + std::to_string(data.serversPerGlyph) + " ("
                + std::to_string(m_glyphCounts[k]) + ")";
        legend->SetEntry(entry++, symbol->GetOutput(), text.c_str(), colour);
    }

    if (m_flaggedNodes > 0) {
        double colour[3] = { kFlagColour[0], kFlagColour[1], kFlagColour[2] };
        vtkNew<vtkCubeSource> symbol;
        symbol->Update();
        const std::string text
            = "Flagged: " + std::to_string(m_flaggedNodes) + " switches, " + std::to_string(flaggedLines) + " lines";
        legend->SetEntry(entry++, symbol->GetOutput(), text.c_str(), colour);
    }

    if (flagLegend) {
        double colour[3] = { kFlagColour[0], kFlagColour[1], kFlagColour[2] };
        vtkNew<vtkCubeSource> symbol;
        symbol->Update();
        const std::string text = data.flagLegend + " (" + std::to_string(flaggedLines) + ")";
        legend->SetEntry(entry++, symbol->GetOutput(), text.c_str(), colour);
    }

    auto lut = utilisationColours();
    bool anyValue = false;
    for (int which = 0; which < 4; ++which) {
        int count = 0;
        if (auto actor = linkActor(data, allPoints, which, lut, count)) {
            renderer->AddActor(actor);
            m_actors->props.push_back(actor);
            anyValue = anyValue || which == 0 || which == 3;
        }
        m_linkCount += count;
    }

    if (legendEntries > 0) {
        legend->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
        legend->GetPositionCoordinate()->SetValue(0.01, 0.01);
        legend->GetPosition2Coordinate()->SetCoordinateSystemToNormalizedViewport();
        legend->GetPosition2Coordinate()->SetValue(0.2, 0.01 + 0.035 * legendEntries);
        legend->UseBackgroundOn();
        double white[3] = { 1, 1, 1 };
        legend->SetBackgroundColor(white);
        legend->SetBackgroundOpacity(0.8);
        legend->GetEntryTextProperty()->SetColor(0.1, 0.1, 0.1);
        renderer->AddViewProp(legend);
        m_actors->props.push_back(legend.GetPointer());
    }
    if (anyValue) {
        vtkNew<vtkScalarBarActor> bar;
        bar->SetLookupTable(lut);
        bar->SetTitle(data.valueTitle.empty() ? "Link utilisation" : data.valueTitle.c_str());
        bar->SetNumberOfLabels(5);
        bar->SetLabelFormat("%.0f%%");
        bar->SetMaximumWidthInPixels(90);
        bar->GetTitleTextProperty()->SetColor(0.1, 0.1, 0.1);
        bar->GetLabelTextProperty()->SetColor(0.1, 0.1, 0.1);
        bar->GetPositionCoordinate()->SetValue(0.89, 0.06);
        bar->SetWidth(0.09);
        bar->SetHeight(0.78);
        bar->UnconstrainedFontSizeOn();
        bar->GetTitleTextProperty()->SetFontSize(14);
        bar->GetLabelTextProperty()->SetFontSize(12);
        renderer->AddViewProp(bar);
        m_actors->props.push_back(bar.GetPointer());
    }
    if (!data.title.empty()) {
        vtkNew<vtkTextActor> title;
        title->SetInput(data.title.c_str());
        title->GetTextProperty()->SetFontSize(18);
        title->GetTextProperty()->SetColor(0.1, 0.1, 0.15);
        title->GetTextProperty()->BoldOn();
        // Anchored by its top: a title of two lines grows down into the view, not out of it.
        title->GetTextProperty()->SetVerticalJustificationToTop();
        title->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
        title->GetPositionCoordinate()->SetValue(0.01, 0.985);
        renderer->AddViewProp(title);
        m_actors->props.push_back(title.GetPointer());
    }

    vtkCamera* camera = renderer->GetActiveCamera();
    camera->SetFocalPoint(0, 0, 0);
    camera->SetPosition(0.35, -1.0, 0.55);
    camera->SetViewUp(0, 0, 1);
    renderer->ResetCamera();
}

} // namespace clusterscope::views
