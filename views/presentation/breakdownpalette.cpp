#include "views/presentation/breakdownpalette.h"

#include "engine/training/trainingestimate.h"

#include <QCoreApplication>

namespace clusterscope::views {

const std::array<BreakdownComponent, kBreakdownComponentCount>& BreakdownPalette::components()
{
    static const std::array<BreakdownComponent, kBreakdownComponentCount> all { BreakdownComponent::Compute,
        BreakdownComponent::Recompute, BreakdownComponent::TpExposed, BreakdownComponent::PpExposed,
        BreakdownComponent::DpExposed, BreakdownComponent::CpExposed, BreakdownComponent::EpExposed,
        BreakdownComponent::Bubble, BreakdownComponent::Optimizer, BreakdownComponent::Other };
    return all;
}

QString BreakdownPalette::name(BreakdownComponent c)
{
    switch (c) {
    case BreakdownComponent::Compute:
        return QCoreApplication::translate("BreakdownPalette", "Compute");
    case BreakdownComponent::Recompute:
        return QCoreApplication::translate("BreakdownPalette", "Recompute");
    case BreakdownComponent::TpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Exposed TP");
    case BreakdownComponent::PpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Exposed PP");
    case BreakdownComponent::DpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Exposed DP");
    case BreakdownComponent::CpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Exposed CP");
    case BreakdownComponent::EpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Exposed EP");
    case BreakdownComponent::Bubble:
        return QCoreApplication::translate("BreakdownPalette", "Pipeline bubble");
    case BreakdownComponent::Optimizer:
        return QCoreApplication::translate("BreakdownPalette", "Optimizer");
    case BreakdownComponent::Other:
        return QCoreApplication::translate("BreakdownPalette", "Other");
    }
    return {};
}

QString BreakdownPalette::description(BreakdownComponent c)
{
    switch (c) {
    case BreakdownComponent::Compute:
        return QCoreApplication::translate("BreakdownPalette", "Forward and backward kernels.");
    case BreakdownComponent::Recompute:
        return QCoreApplication::translate("BreakdownPalette", "Forward work recomputed for activation checkpointing.");
    case BreakdownComponent::TpExposed:
        return QCoreApplication::translate(
            "BreakdownPalette", "Tensor-parallel collectives not hidden behind compute.");
    case BreakdownComponent::PpExposed:
        return QCoreApplication::translate(
            "BreakdownPalette", "Pipeline point-to-point transfers on the critical path.");
    case BreakdownComponent::DpExposed:
        return QCoreApplication::translate(
            "BreakdownPalette", "Data-parallel gradient and parameter traffic not hidden behind backward.");
    case BreakdownComponent::CpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Context-parallel traffic not hidden behind attention.");
    case BreakdownComponent::EpExposed:
        return QCoreApplication::translate("BreakdownPalette", "Expert-parallel all-to-all.");
    case BreakdownComponent::Bubble:
        return QCoreApplication::translate("BreakdownPalette", "Pipeline fill and drain.");
    case BreakdownComponent::Optimizer:
        return QCoreApplication::translate("BreakdownPalette", "Adam step.");
    case BreakdownComponent::Other:
        return QCoreApplication::translate("BreakdownPalette", "Gradient compression kernels.");
    }
    return {};
}

QColor BreakdownPalette::color(BreakdownComponent c)
{
    // Okabe-Ito: blue, sky blue, orange, bluish green, vermillion, reddish purple, yellow; the
    // overheads in neutral grey, brown and light grey.
    switch (c) {
    case BreakdownComponent::Compute:
        return QColor(0x00, 0x72, 0xB2);
    case BreakdownComponent::Recompute:
        return QColor(0x56, 0xB4, 0xE9);
    case BreakdownComponent::TpExposed:
        return QColor(0xE6, 0x9F, 0x00);
    case BreakdownComponent::PpExposed:
        return QColor(0x00, 0x9E, 0x73);
    case BreakdownComponent::DpExposed:
        return QColor(0xD5, 0x5E, 0x00);
    case BreakdownComponent::CpExposed:
        return QColor(0xCC, 0x79, 0xA7);
    case BreakdownComponent::EpExposed:
        return QColor(0xF0, 0xE4, 0x42);
    case BreakdownComponent::Bubble:
        return QColor(0x99, 0x99, 0x99);
    case BreakdownComponent::Optimizer:
        return QColor(0x8C, 0x56, 0x4B);
    case BreakdownComponent::Other:
        return QColor(0xCC, 0xCC, 0xCC);
    }
    return Qt::black;
}

double BreakdownPalette::seconds(const engine::IterationBreakdown& b, BreakdownComponent c)
{
    switch (c) {
    case BreakdownComponent::Compute:
        return b.compute;
    case BreakdownComponent::Recompute:
        return b.recompute;
    case BreakdownComponent::TpExposed:
        return b.tpExposed;
    case BreakdownComponent::PpExposed:
        return b.ppExposed;
    case BreakdownComponent::DpExposed:
        return b.dpExposed;
    case BreakdownComponent::CpExposed:
        return b.cpExposed;
    case BreakdownComponent::EpExposed:
        return b.epExposed;
    case BreakdownComponent::Bubble:
        return b.bubble;
    case BreakdownComponent::Optimizer:
        return b.optimizer;
    case BreakdownComponent::Other:
        return b.other;
    }
    return 0;
}

std::vector<BreakdownSlice> BreakdownPalette::slices(const engine::IterationBreakdown& b)
{
    std::vector<BreakdownSlice> out;
    out.reserve(kBreakdownComponentCount);
    for (const BreakdownComponent c : components())
        out.push_back({ c, name(c), color(c), seconds(b, c) });
    return out;
}

QColor BreakdownPalette::networkShareColor() { return QColor(0x22, 0x22, 0x22); }

QColor BreakdownPalette::guidelineColor() { return QColor(0xB0, 0x30, 0x30); }

} // namespace clusterscope::views
