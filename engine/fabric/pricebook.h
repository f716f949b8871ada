#pragma once

// The price book: every price the cost model uses, each with its source and date.
//
// Authority: the price book is the ONLY source of cost. The catalog (resources/catalog) carries the
// technical figures (rates, reach, power) and keeps a `price_usd` seed for its listings; the built-in
// price book (resources/pricebook/pricebook.json) was written from those seeds and is what users edit
// (or replace with --prices FILE). An item the BOM needs that the price book lacks is an error naming
// it, never a silent fallback to the catalog or to zero.

#include "engine/core/status.h"

#include <string>
#include <vector>

namespace clusterscope::engine {

struct PriceEntry {
    std::string kind; ///< gpu | host | nic | switch | cable | transceiver
    std::string id; ///< catalog id (host: the GPU id the server carries)
    double priceUsd = 0; ///< unit price (cable: fixed part); host: per GPU slot, excluding GPUs and NICs
    double pricePerMetreUsd = 0; ///< cables only: length-dependent part (USD/m)
    std::string source;
    std::string date; ///< ISO date
};

class PriceBook {
public:
    /// resources/pricebook/pricebook.json compiled into the program.
    static Result<PriceBook> builtin();
    static Result<PriceBook> loadFile(const std::string& path);
    /// Parses a price book document; `origin` (file name) prefixes error messages.
    static Result<PriceBook> parse(const std::string& json, const std::string& origin);

    const std::vector<PriceEntry>& entries() const { return m_entries; }
    /// The entry for (kind, id), or nullptr.
    const PriceEntry* find(const std::string& kind, const std::string& id) const;
    /// Like find, or an error "price book has no <kind> \"<id>\"".
    Result<PriceEntry> require(const std::string& kind, const std::string& id) const;

private:
    std::vector<PriceEntry> m_entries;
};

} // namespace clusterscope::engine
