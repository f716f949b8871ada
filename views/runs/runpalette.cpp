#include "views/runs/runpalette.h"

#include "engine/run/runanalysis.h"
#include "views/presentation/breakdownpalette.h"

#include <QCoreApplication>

namespace clusterscope::views {

const std::array<RunComponent, kRunComponentCount>& RunPalette::components()
{
    static const std::array<RunComponent, kRunComponentCount> all { RunComponent::Compute, RunComponent::CommExposed,
        RunComponent::Memcpy, RunComponent::Idle, RunComponent::CommOverlapped };
    return all;
}

QString RunPalette::name(RunComponent c)
{
    switch (c) {
    case RunComponent::Compute:
        return QCoreApplication::translate("RunPalette", "Compute");
    case RunComponent::CommExposed:
        return QCoreApplication::translate("RunPalette", "Exposed communication");
    case RunComponent::CommOverlapped:
        return QCoreApplication::translate("RunPalette", "Overlapped communication");
    case RunComponent::Memcpy:
        return QCoreApplication::translate("RunPalette", "Memcpy/memset");
    case RunComponent::Idle:
        return QCoreApplication::translate("RunPalette", "Idle");
    }
    return {};
}

QString RunPalette::description(RunComponent c)
{
    switch (c) {
    case RunComponent::Compute:
        return QCoreApplication::translate("RunPalette", "Union of the compute kernels.");
    case RunComponent::CommExposed:
        return QCoreApplication::translate("RunPalette", "Communication kernels not hidden under compute.");
    case RunComponent::CommOverlapped:
        return QCoreApplication::translate(
            "RunPalette", "Communication kernels running under compute (not added to the step time).");
    case RunComponent::Memcpy:
        return QCoreApplication::translate("RunPalette", "Copies and fills not hidden under other kernels.");
    case RunComponent::Idle:
        return QCoreApplication::translate("RunPalette", "No GPU activity at all.");
    }
    return {};
}

QColor RunPalette::color(RunComponent c)
{
    switch (c) {
    case RunComponent::Compute:
        return BreakdownPalette::color(BreakdownComponent::Compute);
    case RunComponent::CommExposed:
        return BreakdownPalette::color(BreakdownComponent::TpExposed);
    case RunComponent::CommOverlapped: {
        // The exposed-communication hue blended halfway to white: the same family, lighter.
        const QColor exposed = BreakdownPalette::color(BreakdownComponent::TpExposed);
        return QColor((exposed.red() + 255) / 2, (exposed.green() + 255) / 2, (exposed.blue() + 255) / 2);
    }
    case RunComponent::Memcpy:
        return BreakdownPalette::color(BreakdownComponent::Other);
    case RunComponent::Idle:
        return BreakdownPalette::color(BreakdownComponent::Bubble);
    }
    return Qt::black;
}

double RunPalette::seconds(const engine::RankStepBreakdown& b, RunComponent c)
{
    switch (c) {
    case RunComponent::Compute:
        return b.computeSeconds;
    case RunComponent::CommExposed:
        return b.commExposedSeconds;
    case RunComponent::CommOverlapped:
        return b.commOverlappedSeconds;
    case RunComponent::Memcpy:
        return b.memcpySeconds;
    case RunComponent::Idle:
        return b.idleSeconds;
    }
    return 0;
}

bool RunPalette::addsToDuration(RunComponent c) { return c != RunComponent::CommOverlapped; }

QColor RunPalette::activityColor(engine::GpuActivityKind kind)
{
    switch (kind) {
    case engine::GpuActivityKind::Compute:
        return color(RunComponent::Compute);
    case engine::GpuActivityKind::Communication:
        return color(RunComponent::CommExposed);
    case engine::GpuActivityKind::Memcpy:
    case engine::GpuActivityKind::Memset:
        return color(RunComponent::Memcpy);
    }
    return Qt::black;
}

} // namespace clusterscope::views
