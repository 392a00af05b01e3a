// Event notes: valid UTF-8, 1024-byte cap on a character boundary, reason doubles as action.
#include "k8s/event_builder.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

namespace nvcre::k8s {
namespace {

TEST(EventNote, ShortValidNotesAreUntouched) {
  EXPECT_EQ(sanitize_event_note("héllo ✓"), "héllo ✓");
}

TEST(EventNote, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_EQ(sanitize_event_note("a\xFF"
                                "b\xC3"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(sanitize_event_note("\xED\xA0\x80"),
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

TEST(EventNote, LongNotesAreCutOnACharacterBoundary) {
  std::string note(1020, 'x');
  note += "ééééé";  // 2-byte characters straddling the cap
  std::string out = sanitize_event_note(note);
  EXPECT_LE(out.size(), kMaxEventNoteBytes);
  EXPECT_TRUE(out.ends_with("... [truncated]"));
  EXPECT_EQ(out.find("\xEF\xBF\xBD"), std::string::npos);
  std::string exact(1024, 'y');
  EXPECT_EQ(sanitize_event_note(exact), exact);
  std::string multibyte;
  for (int i = 0; i < 600; ++i) multibyte += "é";
  std::string cut = sanitize_event_note(multibyte);
  EXPECT_LE(cut.size(), kMaxEventNoteBytes);
  EXPECT_EQ((cut.size() - std::string_view("... [truncated]").size()) % 2, 0u);
}

TEST(EventBuilder, BuildsAnEventsK8sIoEvent) {
  EventRecord record{ObjectRef{"nvcre.nvidia.com/v1alpha1", "Certification", "team-a", "cert"},
                     "uid-1", "Warning", "WorkflowFailed", "broke"};
  auto now = *parse_rfc3339("2026-01-01T00:00:00Z");
  auto event = build_event(record, now, EventSource{"nvcre", "manager-0"}, 7).as_object();
  EXPECT_EQ(event.at("apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(event.at("action"), "WorkflowFailed");
  EXPECT_EQ(event.at("reason"), "WorkflowFailed");
  EXPECT_EQ(event.at("eventTime"), "2026-01-01T00:00:00.000000Z");
  EXPECT_EQ(event.at("metadata").at("namespace"), "team-a");
  EXPECT_TRUE(event.at("metadata").at("name").as_string().starts_with("cert."));
  EXPECT_EQ(event.at("regarding").at("uid"), "uid-1");
  EXPECT_NE(build_event(record, now, {}, 8).at("metadata").at("name"),
            event.at("metadata").at("name"));
}

}  // namespace
}  // namespace nvcre::k8s
