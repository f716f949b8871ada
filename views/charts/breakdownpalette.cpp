#include "views/charts/breakdownpalette.h"

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
    case BreakdownComponent::Compute: return QCoreApplication::translate("BreakdownPalette", "Compute");
    case BreakdownComponent::Recompute: return QCoreApplication::translate("BreakdownPalette", "Recompute");
    case BreakdownComponent::TpExposed: return QCoreApplication::translate("BreakdownPalette", "Exposed TP");
    case BreakdownComponent::PpExposed: return QCoreApplication::translate("BreakdownPalette", "Exposed PP");
    case BreakdownComponent::DpExposed: return QCoreApplication::translate("BreakdownPalette", "Exposed DP");
    case BreakdownComponent::CpExposed: return QCoreApplication::translate("BreakdownPalette", "Exposed CP");
    case BreakdownComponent::EpExposed: return QCoreApplication::translate("BreakdownPalette", "Exposed EP");
    case BreakdownComponent::Bubble: return QCoreApplication::translate("BreakdownPalette", "Pipeline bubble");
    case BreakdownComponent::Optimizer: return QCoreApplication::translate("BreakdownPalette", "Optimizer");
    case BreakdownComponent::Other: return QCoreApplication::translate("BreakdownPalette", "Other");
    }
    return {};
}

QString BreakdownPalette::description(BreakdownComponent c)
{
    switch (c) {
    case BreakdownComponent::Compute: return QCoreApplication::translate("BreakdownPalette", "Forward and backward kernels.");
    case BreakdownComponent::Recompute: return QCoreApplication::translate("BreakdownPalette", "Forward work recomputed for activation checkpointing.");
    case BreakdownComponent::TpExposed: return QCoreApplication::translate("BreakdownPalette", "Tensor-parallel collectives not hidden behind compute.");
    case BreakdownComponent::PpExposed: return QCoreApplication::translate("BreakdownPalette", "Pipeline point-to-point transfers on the critical path.");
    case BreakdownComponent::DpExposed: return QCoreApplication::translate("BreakdownPalette", "Data-parallel gradient and parameter traffic not hidden behind backward.");
    case BreakdownComponent::CpExposed: return QCoreApplication::translate("BreakdownPalette", "Context-parallel traffic not hidden behind attention.");
    case BreakdownComponent::EpExposed: return QCoreApplication::translate("BreakdownPalette", "Expert-parallel all-to-all.");
    case BreakdownComponent::Bubble: return QCoreApplication::translate("BreakdownPalette", "Pipeline fill and drain.");
    case BreakdownComponent::Optimizer: return QCoreApplication::translate("BreakdownPalette", "Adam step.");
    case BreakdownComponent::Other: return QCoreApplication::translate("BreakdownPalette", "Gradient compression kernels.");
    }
    return {};
}

QColor BreakdownPalette::color(BreakdownComponent c)
{
    // Based on the "deep" qualitative palette of seaborn (Waskom 2021), chosen for distinct hues
    // that stay distinguishable for common colour-vision deficiencies; recompute is a lighter
    // compute blue so that the two read as one family.
    switch (c) {
    case BreakdownComponent::Compute: return QColor(0x4C, 0x72, 0xB0);
    case BreakdownComponent::Recompute: return QColor(0xA1, 0xB8, 0xE0);
    case BreakdownComponent::TpExposed: return QColor(0xDD, 0x84, 0x52);
    case BreakdownComponent::PpExposed: return QColor(0xC4, 0x4E, 0x52);
    case BreakdownComponent::DpExposed: return QColor(0x55, 0xA8, 0x68);
    case BreakdownComponent::CpExposed: return QColor(0x81, 0x72, 0xB3);
    case BreakdownComponent::EpExposed: return QColor(0xDA, 0x8B, 0xC3);
    case BreakdownComponent::Bubble: return QColor(0xCC, 0xB9, 0x74);
    case BreakdownComponent::Optimizer: return QColor(0x64, 0xB5, 0xCD);
    case BreakdownComponent::Other: return QColor(0x8C, 0x8C, 0x8C);
    }
    return Qt::black;
}

double BreakdownPalette::seconds(const engine::IterationBreakdown& b, BreakdownComponent c)
{
    switch (c) {
    case BreakdownComponent::Compute: return b.compute;
    case BreakdownComponent::Recompute: return b.recompute;
    case BreakdownComponent::TpExposed: return b.tpExposed;
    case BreakdownComponent::PpExposed: return b.ppExposed;
    case BreakdownComponent::DpExposed: return b.dpExposed;
    case BreakdownComponent::CpExposed: return b.cpExposed;
    case BreakdownComponent::EpExposed: return b.epExposed;
    case BreakdownComponent::Bubble: return b.bubble;
    case BreakdownComponent::Optimizer: return b.optimizer;
    case BreakdownComponent::Other: return b.other;
    }
    return 0;
}

QColor BreakdownPalette::networkShareColor() { return QColor(0x22, 0x22, 0x22); }

QColor BreakdownPalette::guidelineColor() { return QColor(0xB0, 0x30, 0x30); }

} // namespace clusterscope::views
