#pragma once

// Unit-carrying quantities. SI prefixes throughout: 1 GB = 1e9 bytes, 1 Gb/s = 1e9 bit/s,
// 1 GB/s = 1e9 B/s (as nccl-tests reports bandwidth: NVIDIA/nccl-tests doc/PERFORMANCE.md). GiB only appear in
// nccl-tests size suffixes (K, M, G = powers of 1024), parsed by parseByteSize().
//
// Each quantity is a thin wrapper over a double so that hot loops pay nothing; arithmetic that
// mixes units is spelt out by the functions below, so bits and bytes cannot be confused silently.

#include <cstdint>
#include <optional>
#include <string_view>

namespace clusterscope::engine {

template <typename Tag> struct Quantity {
    double value = 0.0;

    constexpr Quantity() = default;
    constexpr explicit Quantity(double v)
        : value(v)
    {
    }
    constexpr Quantity operator+(Quantity o) const { return Quantity(value + o.value); }
    constexpr Quantity operator-(Quantity o) const { return Quantity(value - o.value); }
    constexpr Quantity operator*(double k) const { return Quantity(value * k); }
    constexpr Quantity operator/(double k) const { return Quantity(value / k); }
    constexpr double operator/(Quantity o) const { return value / o.value; }
    constexpr Quantity& operator+=(Quantity o)
    {
        value += o.value;
        return *this;
    }
    constexpr Quantity& operator-=(Quantity o)
    {
        value -= o.value;
        return *this;
    }
    // Spelt out rather than `<=>`: Qt 6.4's moc cannot parse <compare>, and tests include this header.
    constexpr bool operator==(Quantity o) const { return value == o.value; }
    constexpr bool operator!=(Quantity o) const { return value != o.value; }
    constexpr bool operator<(Quantity o) const { return value < o.value; }
    constexpr bool operator<=(Quantity o) const { return value <= o.value; }
    constexpr bool operator>(Quantity o) const { return value > o.value; }
    constexpr bool operator>=(Quantity o) const { return value >= o.value; }
};

struct BytesTag { };
struct SecondsTag { };
struct BytesPerSecondTag { };
struct BitsPerSecondTag { };
struct FlopsTag { };
struct FlopsPerSecondTag { };
struct WattsTag { };
struct UsdTag { };
struct MetresTag { };

using Bytes = Quantity<BytesTag>; ///< bytes (B)
using Seconds = Quantity<SecondsTag>; ///< seconds (s)
using BytesPerSecond = Quantity<BytesPerSecondTag>; ///< bytes per second (B/s)
using BitsPerSecond = Quantity<BitsPerSecondTag>; ///< bits per second (b/s), the unit of link rates
using Flops = Quantity<FlopsTag>; ///< floating-point operations
using FlopsPerSecond = Quantity<FlopsPerSecondTag>; ///< floating-point operations per second
using Watts = Quantity<WattsTag>; ///< watts (W)
using Usd = Quantity<UsdTag>; ///< US dollars
using Metres = Quantity<MetresTag>; ///< metres (m)

inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;

constexpr Bytes gigabytes(double gb) { return Bytes(gb * kGiga); }
constexpr BitsPerSecond gigabitsPerSecond(double gbps) { return BitsPerSecond(gbps * kGiga); }
constexpr BytesPerSecond gigabytesPerSecond(double gBps) { return BytesPerSecond(gBps * kGiga); }
constexpr FlopsPerSecond teraflopsPerSecond(double tf) { return FlopsPerSecond(tf * kTera); }
constexpr Seconds microseconds(double us) { return Seconds(us * 1e-6); }

/// A link rate in bits per second expressed as bytes per second (8 bits per byte; no encoding
/// overhead is applied here: 64b/66b or PAM4 FEC are already excluded from the nominal data rates).
constexpr BytesPerSecond toBytesPerSecond(BitsPerSecond r) { return BytesPerSecond(r.value / 8.0); }
constexpr BitsPerSecond toBitsPerSecond(BytesPerSecond r) { return BitsPerSecond(r.value * 8.0); }

/// Time to move `b` at rate `r`.
constexpr Seconds transferTime(Bytes b, BytesPerSecond r) { return Seconds(b.value / r.value); }
/// Rate achieved moving `b` in `t`.
constexpr BytesPerSecond rate(Bytes b, Seconds t) { return BytesPerSecond(b.value / t.value); }
/// Time to execute `f` at `r`.
constexpr Seconds computeTime(Flops f, FlopsPerSecond r) { return Seconds(f.value / r.value); }

/// Parses an nccl-tests style size: a non-negative integer with an optional suffix K, M, G or T
/// (powers of 1024, as nccl-tests' -b/-e options read them), e.g. "8", "128K", "8G". Returns
/// nothing if the text is not such a size.
std::optional<std::uint64_t> parseByteSize(std::string_view text);

} // namespace clusterscope::engine
