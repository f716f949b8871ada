#include "engine/fabric/pricebook.h"

#include "engine/core/jsonfields.h"
#include "resources/embeddedresources.h"

#include <fstream>
#include <set>
#include <sstream>

namespace clusterscope::engine {

using nlohmann::json;

Result<PriceBook> PriceBook::parse(const std::string& text, const std::string& origin)
{
    auto parsed = parseJsonText(text, origin);
    if (!parsed)
        return parsed.status();
    const json& doc = *parsed;
    PriceBook book;
    try {
        JsonObjectReader root(doc, "");
        if (root.string("format") != "clusterscope-pricebook")
            throw JsonFieldError("/format", "expected \"clusterscope-pricebook\"");
        if (root.integer("version", 1) != 1)
            throw JsonFieldError("/version", "unsupported price book version");
        root.string("currency", std::string("USD")) == "USD"
            ? void()
            : throw JsonFieldError("/currency", "only USD is supported");
        root.string("note", std::string());
        const json* items = root.raw("items");
        if (!items || !items->is_array())
            throw JsonFieldError("/items", "expected an array of prices");
        std::set<std::pair<std::string, std::string>> seen;
        for (std::size_t i = 0; i < items->size(); ++i) {
            JsonObjectReader r((*items)[i], "/items/" + std::to_string(i));
            PriceEntry e;
            e.kind = r.choice("kind", { "gpu", "host", "nic", "switch", "cable", "transceiver" });
            e.id = r.string("id");
            e.priceUsd = r.number("price_usd", 0.0, 1e9);
            e.pricePerMetreUsd = r.number("price_per_m_usd", 0.0, 1e6, 0.0);
            e.source = r.string("source");
            e.date = r.string("date");
            if (e.source.empty())
                throw JsonFieldError(r.pointerOf("source"), "every price must name its source");
            if (e.date.size() != 10 || e.date[4] != '-' || e.date[7] != '-')
                throw JsonFieldError(r.pointerOf("date"), "expected an ISO date YYYY-MM-DD, got \"" + e.date + "\"");
            if (!seen.insert({ e.kind, e.id }).second)
                throw JsonFieldError(r.pointerOf("id"), "duplicate price for " + e.kind + " \"" + e.id + "\"");
            r.finish();
            book.m_entries.push_back(std::move(e));
        }
        root.finish();
    } catch (const JsonFieldError& e) {
        return Status::error(origin + ": " + e.pointer + ": " + e.what());
    } catch (const json::exception& e) {
        return Status::error(jsonExceptionMessage(origin, e));
    }
    return book;
}

Result<PriceBook> PriceBook::builtin()
{
    return parse(std::string(resources::embeddedFile("pricebook/pricebook.json")), "pricebook/pricebook.json");
}

Result<PriceBook> PriceBook::loadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Status::error(path + ": cannot open the price book");
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

const PriceEntry* PriceBook::find(const std::string& kind, const std::string& id) const
{
    for (const PriceEntry& e : m_entries)
        if (e.kind == kind && e.id == id)
            return &e;
    return nullptr;
}

Result<PriceEntry> PriceBook::require(const std::string& kind, const std::string& id) const
{
    if (const PriceEntry* e = find(kind, id))
        return *e;
    return Status::error("the price book has no " + kind + " \"" + id + "\"");
}

} // namespace clusterscope::engine
