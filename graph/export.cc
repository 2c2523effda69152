#include "graph/export.h"

#include <map>

#include "engine/api/json_encode.h"

namespace dynarock::graph {
namespace {

std::string Json(const Neighbourhood& n, const Schema& s) {
  api::JsonWriter w;
  w.BeginObject();
  w.Key("nodes");
  w.BeginArray();
  for (const NeighbourhoodNode& node : n.nodes) {
    w.BeginObject();
    w.Member("id", node.id);
    w.Member("type", s.NodeType(node.id));
    w.MemberInt("depth", node.depth);
    w.MemberBool("exists", node.node.has_value());
    w.Key("attributes");
    w.Raw(node.node ? api::EncodeItemJson(node.node->attributes) : std::string("{}"));
    w.EndObject();
  }
  w.EndArray();
  w.Key("edges");
  w.BeginArray();
  for (const NeighbourhoodEdge& ne : n.edges) WriteEdgeJson(w, ne.edge, ne.in_edge_set);
  w.EndArray();
  w.Key("edge_types");
  w.BeginArray();
  for (const std::string& t : n.edge_types) w.String(t);
  w.EndArray();
  w.MemberBool("truncated", n.truncated);
  WriteSchemaJson(w, s);
  w.EndObject();
  return w.Release();
}

// A DOT ID: a double-quoted string with " and \ escaped, newlines as \n.
std::string DotId(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::string Dot(const Neighbourhood& n, const Schema& s, std::string_view name) {
  // Colours by type, in order of appearance (Graphviz's set312 scheme).
  std::map<std::string, int> colour;
  std::string out = "digraph " + DotId(name) + " {\n";
  out += "  graph [rankdir=LR, fontname=\"Helvetica\"];\n";
  out += "  node [shape=ellipse, style=filled, colorscheme=set312, fontname=\"Helvetica\"];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  for (const NeighbourhoodNode& node : n.nodes) {
    const std::string type = s.NodeType(node.id);
    const int c = colour.emplace(type, static_cast<int>(colour.size()) % 12 + 1).first->second;
    out += "  " + DotId(node.id) + " [fillcolor=" + std::to_string(c);
    if (!node.node) out += ", style=\"filled,dashed\"";
    out += "];\n";
  }
  for (const NeighbourhoodEdge& ne : n.edges) {
    const Edge& e = ne.edge;
    std::string label = e.type;
    if (!e.rank.empty() && e.rank != e.source) label += "\n" + e.rank;
    out += "  " + DotId(e.source) + " -> " + DotId(e.target) + " [label=" + DotId(label);
    if (!ne.in_edge_set) out += ", style=dashed";
    out += "];\n";
  }
  out += "}\n";
  return out;
}

std::string Xml(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // XML 1.0 forbids most control characters even as references.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

std::string GraphML(const Neighbourhood& n, const Schema& s, std::string_view name) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
      "  <key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n"
      "  <key id=\"depth\" for=\"node\" attr.name=\"depth\" attr.type=\"int\"/>\n"
      "  <key id=\"attributes\" for=\"node\" attr.name=\"attributes\" attr.type=\"string\"/>\n"
      "  <key id=\"etype\" for=\"edge\" attr.name=\"type\" attr.type=\"string\"/>\n"
      "  <key id=\"rank\" for=\"edge\" attr.name=\"rank\" attr.type=\"string\"/>\n"
      "  <key id=\"in_edge_set\" for=\"edge\" attr.name=\"in_edge_set\" attr.type=\"boolean\"/>\n"
      "  <key id=\"eattributes\" for=\"edge\" attr.name=\"attributes\" attr.type=\"string\"/>\n";
  out += "  <graph id=\"" + Xml(name) + "\" edgedefault=\"directed\">\n";
  for (const NeighbourhoodNode& node : n.nodes) {
    out += "    <node id=\"" + Xml(node.id) + "\">\n";
    out += "      <data key=\"type\">" + Xml(s.NodeType(node.id)) + "</data>\n";
    out += "      <data key=\"depth\">" + std::to_string(node.depth) + "</data>\n";
    out += "      <data key=\"attributes\">" +
           Xml(node.node ? api::EncodeItemJson(node.node->attributes) : "{}") + "</data>\n";
    out += "    </node>\n";
  }
  for (const NeighbourhoodEdge& ne : n.edges) {
    const Edge& e = ne.edge;
    out += "    <edge source=\"" + Xml(e.source) + "\" target=\"" + Xml(e.target) + "\">\n";
    out += "      <data key=\"etype\">" + Xml(e.type) + "</data>\n";
    out += "      <data key=\"rank\">" + Xml(e.rank) + "</data>\n";
    out += std::string("      <data key=\"in_edge_set\">") + (ne.in_edge_set ? "true" : "false") +
           "</data>\n";
    out += "      <data key=\"eattributes\">" + Xml(api::EncodeItemJson(e.properties)) + "</data>\n";
    out += "    </edge>\n";
  }
  out += "  </graph>\n</graphml>\n";
  return out;
}

}  // namespace

void WriteSchemaJson(api::JsonWriter& w, const Schema& s) {
  w.Key("schema");
  w.BeginObject();
  w.Member("pk", s.pk_attribute);
  w.Member("sk", s.sk_attribute);
  w.Member("separator", s.separator);
  w.Member("inverted_index", s.inverted_index);
  w.Member("rank_attribute", s.rank_attribute);
  w.Member("edge_set_attribute", s.edge_set_attribute);
  w.Member("incoming_types_attribute", s.incoming_types_attribute);
  w.Member("edge_pages_attribute", s.edge_pages_attribute);
  w.EndObject();
}

void WriteEdgeJson(api::JsonWriter& w, const Edge& e, std::optional<bool> in_edge_set) {
  w.BeginObject();
  w.Member("source", e.source);
  w.Member("target", e.target);
  w.Member("type", e.type);
  w.Member("rank", e.rank);
  if (in_edge_set) w.MemberBool("in_edge_set", *in_edge_set);
  w.Key("attributes");
  w.Raw(api::EncodeItemJson(e.properties));
  w.EndObject();
}

std::optional<ExportFormat> ParseExportFormat(std::string_view name) {
  if (name == "json") return ExportFormat::kJson;
  if (name == "dot") return ExportFormat::kDot;
  if (name == "graphml") return ExportFormat::kGraphML;
  return std::nullopt;
}

std::string ExportGraph(const Neighbourhood& n, const Schema& schema, ExportFormat format,
                        std::string_view name) {
  switch (format) {
    case ExportFormat::kDot: return Dot(n, schema, name);
    case ExportFormat::kGraphML: return GraphML(n, schema, name);
    case ExportFormat::kJson: break;
  }
  return Json(n, schema);
}

void WriteTraversalJson(api::JsonWriter& w, const TraversalResult& r) {
  auto ids = [&](const std::vector<std::string>& v) {
    w.BeginArray();
    for (const std::string& id : v) w.String(id);
    w.EndArray();
  };
  w.BeginObject();
  w.Key("Results");
  ids(r.results);
  w.Key("Levels");
  w.BeginArray();
  for (const auto& level : r.levels) ids(level);
  w.EndArray();
  w.MemberBool("Truncated", r.truncated);
  if (!r.next_cursor.empty()) w.Member("NextCursor", r.next_cursor);
  w.Key("Steps");
  w.BeginArray();
  for (const TraversalStep& st : r.steps) {
    w.BeginObject();
    w.Member("Plan", st.plan);
    w.MemberInt("Frontier", st.frontier);
    w.MemberInt("Reached", st.reached);
    w.MemberInt("Requests", st.requests);
    w.MemberInt("ItemsRead", st.items_read);
    w.MemberDouble("ReadUnits", st.read_units);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace dynarock::graph
