#include "importers/nccltests/nccltestsimporter.h"

#include "importers/common/inputfile.h"
#include "importers/nccltests/nccltestsjsonparser.h"

namespace clusterscope::importers {

engine::Result<NcclTestsLog> parseNcclTestsText(
    std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] == '{')
        return NcclTestsJsonParser::parse(text, fileName, options);
    return NcclTestsParser::parse(text, fileName, options);
}

engine::Result<NcclTestsLog> importNcclTestsFile(const std::string& path, const NcclTestsParseOptions& options)
{
    auto content = readInputFile(path);
    if (!content)
        return content.status();
    return parseNcclTestsText(*content, path, options);
}

} // namespace clusterscope::importers
