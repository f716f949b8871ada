#include "views/heatmap/heatmapviewport.h"

#include <algorithm>
#include <cmath>

namespace clusterscope::views {

long long TrafficHeatmapGeometry::gpusPerBlock(HeatmapLevel level) const
{
    const long long node = std::max(1, gpusPerNode);
    const long long rack = node * std::max(1, nodesPerRack);
    switch (level) {
    case HeatmapLevel::Gpu:
        return 1;
    case HeatmapLevel::Node:
        return node;
    case HeatmapLevel::Rack:
        return rack;
    case HeatmapLevel::Pod:
        return rack * std::max(1, racksPerPod);
    }
    return 1;
}

QString levelName(HeatmapLevel level)
{
    switch (level) {
    case HeatmapLevel::Gpu:
        return QStringLiteral("GPU");
    case HeatmapLevel::Node:
        return QStringLiteral("node");
    case HeatmapLevel::Rack:
        return QStringLiteral("rack");
    case HeatmapLevel::Pod:
        return QStringLiteral("pod");
    }
    return {};
}

QString levelNamePlural(HeatmapLevel level) { return levelName(level) + QLatin1Char('s'); }

void HeatmapViewport::setGpus(long long gpus)
{
    m_gpus = std::max(0LL, gpus);
    reset();
}

void HeatmapViewport::reset()
{
    m_rowStart = m_colStart = 0;
    m_span = static_cast<double>(m_gpus);
}

double HeatmapViewport::minSpan() const { return std::min(4.0, static_cast<double>(m_gpus)); }

void HeatmapViewport::zoomAt(double fx, double fy, double factor)
{
    if (m_gpus <= 0 || !(factor > 0))
        return;
    const double anchorCol = m_colStart + fx * m_span, anchorRow = m_rowStart + fy * m_span;
    const double span = std::clamp(m_span / factor, minSpan(), static_cast<double>(m_gpus));
    m_colStart = anchorCol - fx * span;
    m_rowStart = anchorRow - fy * span;
    m_span = span;
    clamp();
}

void HeatmapViewport::panBy(double dxFraction, double dyFraction)
{
    m_colStart -= dxFraction * m_span;
    m_rowStart -= dyFraction * m_span;
    clamp();
}

void HeatmapViewport::setWindow(double rowStart, double colStart, double span)
{
    m_rowStart = rowStart;
    m_colStart = colStart;
    m_span = std::clamp(span, minSpan(), static_cast<double>(m_gpus));
    clamp();
}

void HeatmapViewport::clamp()
{
    const double maxStart = std::max(0.0, static_cast<double>(m_gpus) - m_span);
    m_rowStart = std::clamp(m_rowStart, 0.0, maxStart);
    m_colStart = std::clamp(m_colStart, 0.0, maxStart);
}

HeatmapLevel HeatmapViewport::levelFor(const TrafficHeatmapGeometry& geometry, int plotPixels) const
{
    for (int l = 0; l < kHeatmapLevels; ++l) {
        const auto level = static_cast<HeatmapLevel>(l);
        const double cells = m_span / static_cast<double>(geometry.gpusPerBlock(level));
        // +1: a window that is not block-aligned touches one more block on each axis.
        if (cells <= std::max(1, plotPixels) && std::ceil(cells) + 1 <= 2048)
            return level;
    }
    return HeatmapLevel::Pod;
}

engine::GpuWindow HeatmapViewport::blockWindow(long long b) const
{
    b = std::max(1LL, b);
    const auto begin = [b](double start) { return static_cast<long long>(std::floor(start)) / b * b; };
    const auto end = [b, this](double stop) {
        const long long last = static_cast<long long>(std::ceil(stop));
        return std::min(m_gpus, (last + b - 1) / b * b);
    };
    return { begin(m_rowStart), end(m_rowStart + m_span), begin(m_colStart), end(m_colStart + m_span) };
}

} // namespace clusterscope::views
