// RFC 4180 reading (see csv.h).
#include "ampoule/demo/csv.h"

namespace ampoule::demo {

core::Result<std::vector<CsvRecord>> ParseCsv(std::string_view text) {
  std::vector<CsvRecord> records;
  CsvRecord record;
  std::string field;
  size_t line = 1;
  size_t i = 0;
  auto end_field = [&] {
    record.push_back(std::move(field));
    field.clear();
  };
  auto end_record = [&] {
    end_field();
    records.push_back(std::move(record));
    record.clear();
  };
  auto where = [&] { return "line " + std::to_string(line); };

  bool in_record = false;  // a field of the current record has started
  while (i < text.size()) {
    // At the start of a field.
    in_record = true;
    if (text[i] == '"') {
      ++i;
      const size_t opened_on = line;
      for (;;) {
        if (i >= text.size()) {
          return core::Error{"CSV: quoted field opened on line " + std::to_string(opened_on) +
                       " is never closed"};
        }
        char c = text[i++];
        if (c == '"') {
          if (i < text.size() && text[i] == '"') {
            field += '"';
            ++i;
            continue;
          }
          break;
        }
        if (c == '\n') ++line;
        field += c;
      }
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        return core::Error{"CSV: " + where() + ": text after a closing quote"};
      }
    } else {
      while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
        if (text[i] == '"') return core::Error{"CSV: " + where() + ": a quote inside an unquoted field"};
        field += text[i++];
      }
    }
    // After a field: a separator, a line break, or the end.
    if (i >= text.size()) break;
    if (text[i] == ',') {
      ++i;
      end_field();
      if (i >= text.size()) break;  // "a,b," ends with an empty field
      continue;
    }
    if (text[i] == '\r') {
      if (i + 1 >= text.size() || text[i + 1] != '\n') {
        return core::Error{"CSV: " + where() + ": a carriage return not followed by a line feed"};
      }
      ++i;
    }
    ++i;  // '\n'
    ++line;
    end_record();
    in_record = false;
  }
  // The last record, unless the text ended with a line break.
  if (in_record) end_record();
  return records;
}

}  // namespace ampoule::demo
