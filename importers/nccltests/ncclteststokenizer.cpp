#include "importers/nccltests/ncclteststokenizer.h"

#include <cctype>

namespace clusterscope::importers {

namespace {
    bool isDigit(char c) { return c >= '0' && c <= '9'; }

    // One table lookup per character instead of five comparisons: splitting is the hot loop of the
    // importer (and, instrumented for coverage, of its fuzz target).
    struct SpaceTable {
        bool space[256] {};
        constexpr SpaceTable()
        {
            for (char c : { ' ', '\t', '\r', '\f', '\v' })
                space[static_cast<unsigned char>(c)] = true;
        }
    };
    constexpr SpaceTable kSpaces;
    bool isSpace(char c) { return kSpaces.space[static_cast<unsigned char>(c)]; }

    std::size_t skipDigits(std::string_view s, std::size_t i)
    {
        while (i < s.size() && isDigit(s[i]))
            ++i;
        return i;
    }

    bool startsWith(const std::vector<std::string_view>& t, std::initializer_list<std::string_view> words)
    {
        if (t.size() < words.size())
            return false;
        std::size_t i = 0;
        for (const auto w : words) {
            if (t[i++] != w)
                return false;
        }
        return true;
    }
} // namespace

bool isHeaderWithoutHash(const std::vector<std::string_view>& t)
{
    // The lines nccl-tests prints after '#' (src/common.cu, util.cu), as a page shows them when its
    // markdown ate the '#' (a line "# ..." outside a code block renders as a heading): " nThread 1 nGpus 1
    // minBytes ...", " Using devices", "   Rank  0 Pid 1821213 on HOST device  0 [0x00] NVIDIA ...", the
    // column titles and units, " Out of bounds values : 0 OK", " Avg bus bandwidth : 50.6". Each is matched
    // by its own words, so prose that merely starts with "Rank" or "size" stays prose.
    if (t.empty())
        return false;
    if (t[0] == "nThread")
        return t.size() >= 4 && t[2] == "nGpus";
    if (t[0] == "Rank") {
        bool on = false, device = false;
        for (const auto w : t) {
            on = on || w == "on";
            device = device || w == "device";
        }
        return t.size() >= 6 && isDigit(t[1].front()) && on && device;
    }
    return startsWith(t, { "Using", "devices" }) || startsWith(t, { "size", "count", "type" })
        || startsWith(t, { "(B)", "(elements)" }) || startsWith(t, { "out-of-place", "in-place" })
        || startsWith(t, { "Out", "of", "bounds", "values" }) || startsWith(t, { "Avg", "bus", "bandwidth" })
        || startsWith(t, { "nccl-tests", "version" }) || startsWith(t, { "Collective", "test", "starting:" });
}

NcclTestsTokenizer::NcclTestsTokenizer(std::string_view text)
    : m_text(text)
{
    // A UTF-8 byte order mark would otherwise make the first line unrecognisable.
    if (m_text.substr(0, 3) == "\xEF\xBB\xBF")
        m_offset = 3;
}

namespace {
    /// `count` digits at `i`, or npos.
    std::size_t digitsAt(std::string_view s, std::size_t i, std::size_t count)
    {
        for (std::size_t k = 0; k < count; ++k)
            if (i + k >= s.size() || !isDigit(s[i + k]))
                return std::string_view::npos;
        return i + count;
    }

    /// A leading timestamp "YYYY-MM-DD(T| )HH:MM:SS[(.|,)fraction][Z|(+|-)HH[:]MM]", optionally in
    /// brackets, and the blanks after it (ISO 8601; RFC 3339 as kubectl and docker print it): the
    /// length it spans, or 0. A data row never starts with a date: its first field is a byte count.
    std::size_t timestampLength(std::string_view line)
    {
        std::size_t i = 0;
        const bool bracket = !line.empty() && line[0] == '[';
        if (bracket)
            ++i;
        static constexpr struct {
            std::size_t digits;
            char after;
        } kParts[] = { { 4, '-' }, { 2, '-' }, { 2, 'T' }, { 2, ':' }, { 2, ':' }, { 2, 0 } };
        for (const auto& part : kParts) {
            i = digitsAt(line, i, part.digits);
            if (i == std::string_view::npos)
                return 0;
            if (part.after == 'T') {
                if (i >= line.size() || (line[i] != 'T' && line[i] != ' '))
                    return 0;
                ++i;
            } else if (part.after != 0) {
                if (i >= line.size() || line[i] != part.after)
                    return 0;
                ++i;
            }
        }
        if (i < line.size() && (line[i] == '.' || line[i] == ',') && i + 1 < line.size() && isDigit(line[i + 1]))
            i = skipDigits(line, i + 1);
        if (i < line.size() && line[i] == 'Z') {
            ++i;
        } else if (i < line.size() && (line[i] == '+' || line[i] == '-')) {
            std::size_t j = digitsAt(line, i + 1, 2);
            if (j != std::string_view::npos && j < line.size() && line[j] == ':')
                ++j;
            j = j == std::string_view::npos ? j : digitsAt(line, j, 2);
            if (j == std::string_view::npos)
                return 0;
            i = j;
        }
        if (bracket) {
            if (i >= line.size() || line[i] != ']')
                return 0;
            ++i;
        }
        if (i < line.size() && !isSpace(line[i]))
            return 0;
        while (i < line.size() && isSpace(line[i]))
            ++i;
        return i;
    }

    /// Docker Compose's "service-1  | " before each line: a name of letters, digits, '_', '.' and '-',
    /// blanks, '|' and a blank. The length it spans, or 0.
    std::size_t composeServiceLength(std::string_view line)
    {
        std::size_t i = 0;
        while (i < line.size()
            && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '.'
                || line[i] == '-'))
            ++i;
        if (i == 0 || i >= line.size() || line[i] != ' ')
            return 0;
        while (i < line.size() && line[i] == ' ')
            ++i;
        if (i + 1 >= line.size() || line[i] != '|' || line[i + 1] != ' ')
            return 0;
        return i + 2;
    }
} // namespace

std::size_t NcclTestsTokenizer::quoteLength(std::string_view line)
{
    std::size_t i = 0, afterQuote = 0;
    for (;;) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        if (i >= line.size() || line[i] != '>')
            break;
        afterQuote = ++i;
    }
    return afterQuote;
}

std::size_t NcclTestsTokenizer::prefixLength(std::string_view line)
{
    // Outermost first: a markdown block quote ("> ", "> > ") or the indentation of a markdown list
    // item around the whole log, then the collector's and the launcher's prefixes inside it.
    const std::size_t quote = quoteLength(line);
    std::size_t lead = quote;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t'))
        ++lead;
    line.remove_prefix(lead);
    std::size_t collector = timestampLength(line);
    collector += composeServiceLength(line.substr(collector));
    line.remove_prefix(collector);
    const std::size_t prefix = collector + launcherPrefixLength(line);
    // Leading blanks alone are no prefix: a data row starts with them.
    return prefix > 0 ? lead + prefix : quote;
}

std::size_t NcclTestsTokenizer::launcherPrefixLength(std::string_view line)
{
    // Open MPI --tag-output: "[jobid,rank]<stdout>:" or "<stderr>:" (ompi orte/mca/iof).
    if (!line.empty() && line[0] == '[') {
        std::size_t i = skipDigits(line, 1);
        if (i > 1 && i < line.size() && line[i] == ',') {
            const std::size_t j = skipDigits(line, i + 1);
            if (j > i + 1 && line.substr(j, 2) == "]<") {
                const std::size_t close = line.find(">:", j + 2);
                if (close != std::string_view::npos && close - (j + 2) <= 8)
                    return close + 2;
            }
        }
    }
    // srun --label: "<task>: ". A data row never has a colon right after its first number.
    std::size_t i = 0;
    while (i < line.size() && line[i] == ' ')
        ++i;
    const std::size_t digitsEnd = skipDigits(line, i);
    if (digitsEnd > i && digitsEnd + 1 < line.size() && line[digitsEnd] == ':' && line[digitsEnd + 1] == ' ')
        return digitsEnd + 2;
    return 0;
}

std::size_t NcclTestsTokenizer::loggerPrefixLength(std::string_view line)
{
    auto isIdent = [](char c) { return c == '_' || c == ':' || std::isalnum(static_cast<unsigned char>(c)); };
    std::size_t i = 0;
    while (i < line.size() && line[i] == ' ')
        ++i;
    const std::size_t nameStart = i;
    while (i < line.size() && isIdent(line[i]))
        ++i;
    if (i == nameStart || line.substr(i, 4) != "(), ")
        return 0;
    i += 4;
    // FILE:LINE, with FILE a path without spaces that has an extension.
    const std::size_t fileStart = i;
    bool dot = false;
    while (i < line.size() && line[i] != ':' && line[i] != ' ' && line[i] != ',') {
        dot = dot || line[i] == '.';
        ++i;
    }
    if (i == fileStart || !dot || i >= line.size() || line[i] != ':')
        return 0;
    const std::size_t digitsEnd = skipDigits(line, i + 1);
    if (digitsEnd == i + 1 || line.substr(digitsEnd, 1) != ",")
        return 0;
    i = digitsEnd + 1;
    while (i < line.size() && line[i] == ' ')
        ++i;
    return i;
}

std::vector<std::string_view> NcclTestsTokenizer::split(std::string_view text)
{
    std::vector<std::string_view> tokens;
    split(text, tokens);
    return tokens;
}

void NcclTestsTokenizer::split(std::string_view text, std::vector<std::string_view>& tokens)
{
    tokens.clear();
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && isSpace(text[i]))
            ++i;
        const std::size_t start = i;
        while (i < text.size() && !isSpace(text[i]))
            ++i;
        if (i > start)
            tokens.push_back(text.substr(start, i - start));
    }
}

bool NcclTestsTokenizer::next(NcclTestsLine& line)
{
    if (m_offset >= m_text.size())
        return false;
    std::size_t end = m_text.find('\n', m_offset);
    if (end == std::string_view::npos)
        end = m_text.size();
    std::string_view text = m_text.substr(m_offset, end - m_offset);
    m_offset = end + 1;
    while (!text.empty() && (text.back() == '\r' || text.back() == '\0'))
        text.remove_suffix(1);

    // Reset field by field: the token vector keeps its capacity from line to line.
    line.kind = NcclTestsLineKind::Blank;
    line.text = {};
    line.tokens.clear();
    line.prefixed = false;
    line.loggerPrefixed = false;
    line.number = ++m_lineNumber;
    if (const std::size_t prefix = prefixLength(text); prefix > 0) {
        text.remove_prefix(prefix);
        line.prefixed = true;
    }
    if (const std::size_t prefix = loggerPrefixLength(text); prefix > 0) {
        text.remove_prefix(prefix);
        line.loggerPrefixed = true;
    }
    std::size_t first = 0;
    while (first < text.size() && isSpace(text[first]))
        ++first;
    if (first == text.size()) {
        line.kind = NcclTestsLineKind::Blank;
        line.text = text;
        return true;
    }
    if (text[first] == '#') {
        line.kind = NcclTestsLineKind::Comment;
        line.text = text.substr(first + 1);
    } else {
        line.text = text;
        line.kind = NcclTestsLineKind::Other;
    }
    split(line.text, line.tokens);
    if (line.kind == NcclTestsLineKind::Other) {
        const std::string_view head = line.tokens.front();
        bool allDigits = true;
        for (char c : head)
            allDigits = allDigits && isDigit(c);
        // Open MPI's aggregated help message ("8 more processes have sent help message help-mtl-ofi.txt /
        // OFI call fail", orte/util/show_help.c) starts with a number too; its [host:pid] prefix is lost
        // when a page quotes only the message. It lands anywhere in the output, inside the table too.
        const bool helpAggregate = line.tokens.size() >= 3 && line.tokens[1] == "more"
            && (line.tokens[2] == "processes" || line.tokens[2] == "process");
        if (allDigits && !helpAggregate)
            line.kind = NcclTestsLineKind::Data;
        else if (line.loggerPrefixed || isHeaderWithoutHash(line.tokens))
            line.kind = NcclTestsLineKind::Comment; // the logger or the page dropped the '#' of a header line
    }
    return true;
}

} // namespace clusterscope::importers
