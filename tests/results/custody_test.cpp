// The seal of a registration (results/custody.hpp), at its boundaries.
#include "results/custody.hpp"

#include <gtest/gtest.h>

#include "predictor/sha256.hpp"

namespace tpb {
namespace {

PreregRecord sealed_at(const std::string& registered_at) {
  const std::string text = R"({"registered_at": ")" + registered_at + "\"}";
  return {text, sha256_hex(text), registered_at};
}

std::string measured_at(const PreregRecord& prereg, const std::string& started_at) {
  const MeasurementStamp stamp{prereg.sha256, started_at};
  return seal_problem(prereg, &stamp);
}

// Sealed means registered before measuring: one microsecond after the
// registration is the earliest measurement the seal lets through.
TEST(Seal, HoldsOnlyForAMeasurementThatStartedAfterTheRegistration) {
  const PreregRecord prereg = sealed_at("2026-12-05T15:00:00.000001Z");
  EXPECT_EQ(measured_at(prereg, "2026-12-05T15:00:00.000002Z"), "");
  EXPECT_EQ(measured_at(prereg, "2026-12-05T15:00:00.000001Z"),
            "the registration (2026-12-05T15:00:00.000001Z) is not older than the measurement "
            "(2026-12-05T15:00:00.000001Z); predictions must be registered before measuring");
  EXPECT_NE(measured_at(prereg, "2026-12-05T15:00:00.000000Z"), "");
  // Text order is time order across every field of the timestamp.
  EXPECT_EQ(measured_at(prereg, "2026-12-06T00:00:00.000000Z"), "");
  EXPECT_NE(measured_at(prereg, "2026-12-05T14:59:59.999999Z"), "");
}

TEST(Seal, BreaksWhenTheTextOrTheMeasurementsRegistrationChanged) {
  PreregRecord prereg = sealed_at("2026-12-05T15:00:00.000001Z");
  EXPECT_EQ(seal_problem(prereg), "");
  const MeasurementStamp other{sha256_hex("another registration"), "2026-12-05T16:00:00.000000Z"};
  EXPECT_NE(seal_problem(prereg, &other).find("the measurement ran under registration"), std::string::npos);
  prereg.text += " ";
  EXPECT_NE(seal_problem(prereg).find("edited after registration"), std::string::npos);
  const MeasurementStamp later{prereg.sha256, "2026-12-05T16:00:00.000000Z"};
  EXPECT_NE(seal_problem(prereg, &later).find("edited after registration"), std::string::npos);
}

}  // namespace
}  // namespace tpb
