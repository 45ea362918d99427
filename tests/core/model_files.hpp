// Reading the files of a Hugging Face model folder (../shared/models/): a small JSON reader, enough
// for config.json and reference.json, and one float32 tensor of model.safetensors. Test code only.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace model_files {

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::map<std::string, Json> members;

  const Json& operator[](const std::string& key) const {
    const auto found = members.find(key);
    if (kind != Kind::Object || found == members.end()) throw std::runtime_error("no key " + key);
    return found->second;
  }
  const Json& operator[](std::size_t index) const { return items.at(index); }
  bool has(const std::string& key) const { return members.count(key) != 0; }
  std::vector<double> numbers() const {
    std::vector<double> values;
    for (const Json& item : items) values.push_back(item.number);
    return values;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : text_(text) {}
  Json parse() {
    Json value = parse_value();
    skip_space();
    if (at_ != text_.size()) fail("text after the value");
    return value;
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("JSON: ") + what + " at " + std::to_string(at_));
  }
  void skip_space() {
    while (at_ < text_.size() && std::strchr(" \t\r\n", text_[at_]) != nullptr) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) return ++at_, true;
    return false;
  }
  std::string parse_string() {
    if (!take('"')) fail("expected a string");
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      if (text_[at_] == '\\') {
        ++at_;
        if (at_ >= text_.size()) fail("unfinished escape");
        const char c = text_[at_];
        if (c == 'u') {  // kept as "\uXXXX": no key or value read here needs it decoded
          out += "\\u" + text_.substr(at_ + 1, 4);
          at_ += 5;
          continue;
        }
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
        ++at_;
      } else {
        out += text_[at_++];
      }
    }
    if (!take('"')) fail("unfinished string");
    return out;
  }
  Json parse_value() {
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    Json value;
    const char c = text_[at_];
    if (c == '{') {
      value.kind = Json::Kind::Object;
      ++at_;
      if (take('}')) return value;
      do {
        std::string key = parse_string();
        if (!take(':')) fail("expected ':'");
        value.members[key] = parse_value();
      } while (take(','));
      if (!take('}')) fail("expected '}'");
    } else if (c == '[') {
      value.kind = Json::Kind::Array;
      ++at_;
      if (take(']')) return value;
      do value.items.push_back(parse_value());
      while (take(','));
      if (!take(']')) fail("expected ']'");
    } else if (c == '"') {
      value.kind = Json::Kind::String;
      value.text = parse_string();
    } else if (text_.compare(at_, 4, "true") == 0 || text_.compare(at_, 5, "false") == 0) {
      value.kind = Json::Kind::Bool;
      value.number = c == 't';
      at_ += c == 't' ? 4 : 5;
    } else if (text_.compare(at_, 4, "null") == 0) {
      at_ += 4;
    } else {
      char* end = nullptr;
      value.kind = Json::Kind::Number;
      value.number = std::strtod(text_.c_str() + at_, &end);
      if (end == text_.c_str() + at_) fail("expected a value");
      at_ = static_cast<std::size_t>(end - text_.c_str());
    }
    return value;
  }

  const std::string& text_;
  std::size_t at_ = 0;
};

inline bool file_exists(const std::string& path) { return std::ifstream(path, std::ios::binary).good(); }

inline std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open " + path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

inline Json read_json(const std::string& path) { return JsonParser(read_text(path)).parse(); }

// safetensors: an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
// shape and data_offsets (from the end of the header), then the raw data.
inline std::vector<float> read_f32_tensor(const std::string& path, const std::string& name,
                                          std::vector<long long>* shape = nullptr) {
  const std::string bytes = read_text(path);
  if (bytes.size() < 8) throw std::runtime_error(path + " is too short");
  std::uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[i]);
  const Json header = JsonParser(bytes.substr(8, header_length)).parse();
  const Json& tensor = header[name];
  if (tensor["dtype"].text != "F32") throw std::runtime_error(name + " is " + tensor["dtype"].text + ", not F32");
  const std::size_t begin = 8 + header_length + static_cast<std::size_t>(tensor["data_offsets"][0].number);
  const std::size_t end = 8 + header_length + static_cast<std::size_t>(tensor["data_offsets"][1].number);
  if (end > bytes.size() || begin > end || (end - begin) % 4 != 0) throw std::runtime_error(name + ": bad offsets");
  std::vector<float> values((end - begin) / 4);
  std::memcpy(values.data(), bytes.data() + begin, end - begin);  // little-endian, as every target here
  if (shape) {
    shape->clear();
    for (double extent : tensor["shape"].numbers()) shape->push_back(static_cast<long long>(extent));
  }
  return values;
}

}  // namespace model_files
