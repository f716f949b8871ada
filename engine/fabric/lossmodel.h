#pragma once

// Loss, buffers and flow control of RDMA fabrics (Mittal et al., "Revisiting Network Support for RDMA", SIGCOMM 2018).

namespace clusterscope::engine {

/// Packets in flight for a link: bandwidth-delay product / MTU = (gbps 1e9 / 8) x rtt / mtu.
double windowPackets(double gbps, double rttSeconds, double mtuBytes);

/// Go-back-N RDMA goodput fraction under random loss: 1 / (1 + p W) (p = packet loss probability,
/// W = window in packets): every loss resends the window. 400G, 10 us, 4 KB (W ~ 122): p = 1e-3 ->
/// 0.89, 1e-2 -> 0.45.
double goBackNEfficiency(double lossRate, double windowPackets);

/// The RTT (s) at which go-back-N efficiency falls to `efficiency` for `lossRate` on a link of
/// `gbps` with `mtuBytes` packets: W = (1/e - 1) / p. The often-quoted "0.01% loss costs ~10%" holds for
/// W ~ 1,111 packets, i.e. ~91 us RTT at 400 Gb/s with 4 KB packets.
double rttForEfficiency(double lossRate, double efficiency, double gbps, double mtuBytes);

/// Switch buffer of 100-200 us of link bandwidth (Appenzeller et al., SIGCOMM 2004): gbps 1e9 / 8 x seconds
/// (400G x 200 us = 10 MB).
double bufferBytes(double gbps, double seconds);

/// PFC xoff headroom per port and priority (NVIDIA mlx5 driver, calculate_xoff in
/// en/port_buffer.c): (301 + 2.16 x cable metres) x gbps + 2.72 x MTU bytes.
double pfcHeadroomBytes(double gbps, double cableMetres, double mtuBytes);

/// Effective share of the line rate a transfer gets: congestion-control efficiency (DCQCN, Swift:
/// ~0.99, a parameter) times go-back-N efficiency at `lossRate`.
double effectiveRateFraction(double congestionControlEfficiency, double lossRate, double windowPackets);

} // namespace clusterscope::engine
