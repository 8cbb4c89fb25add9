// Text made safe for the program that reads each report: XML (JUnit), GitHub-flavoured markdown (the PR
// comment) and CSV opened in a spreadsheet. Every string that came from a client (benchmark names, labels,
// error messages, GPU and driver names, commits, branches) goes through one of these: it must show as the
// text it is and never become markup, a link, an image or a formula.
#pragma once

#include <string>

namespace shaderwatch::report {

// XML 1.0 character data or attribute value: the five entities; characters XML cannot hold (C0 controls but tab
// and newline, U+FFFE, U+FFFF, surrogates) dropped, and bytes that are not UTF-8 replaced by U+FFFD, so a
// driver's error message can never make the file unparsable.
std::string xml_text(const std::string& s);

// Markdown table cell text: one line, every character that could open markup there (emphasis, code, links,
// images, HTML, entities, strikethrough, the column bar) backslash-escaped.
std::string md_text(const std::string& s);

// A markdown code span inside a table cell: fenced by more backticks than the longest run inside, padded where
// the text starts or ends with one, the column bar escaped (GitHub splits cells before reading spans).
std::string md_code(const std::string& s);

// An RFC 4180 CSV field, quoted where needed; a field a spreadsheet would take for a formula (starting with =, +,
// -, @, tab or carriage return) starts with an apostrophe, so it is shown as text.
std::string csv_field(const std::string& s);

}  // namespace shaderwatch::report
