#pragma once

#include "importers/ibnetdiscover/importedfabric.h"

#include <string>

namespace clusterscope::importers {

/// For each pair of adjacent tiers (tiers inferred, links oriented lower end first): groups the
/// lower switches that share their up-neighbourhood (same set of upper switches, or more than half
/// of it: one missing or misplaced cable does not move a switch out of its pod), assigns each upper
/// switch to the group most of its down-links come from, and records the groups in
/// `fabric.structure.groups` (switch `group` = pod: the tier-0 group of leaves and the spines
/// above them; higher tiers take their own group numbers).
///
/// Then, per group, against the group's own norm (never against switches of other pods):
/// - a regular mesh (most lower-upper pairs cabled k times): a pair with fewer cables -> `missing`
///   (links flagged missing are added); a lower switch with cables to an upper switch beyond the
///   norm (or outside its group) and short elsewhere -> `miswired` (two switches whose misplaced
///   cables mirror each other -> one flag, "swapped"); beyond the norm only -> `extra`;
/// - otherwise: a lower switch with fewer uplinks than the group's usual count -> `few_uplinks`.
void inferGroupsAndCablingDefects(ImportedFabric& fabric, const std::string& name);

} // namespace clusterscope::importers
