// Outside forms (--form NAME=FILE): CSV and JSON read into the grid's cells,
// every bad input refused in one line naming the value and where, and the
// sealed copy in a registration refused once edited.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "predictor/campaign_design.hpp"
#include "predictor/outside_form.hpp"
#include "predictor/registration.hpp"
#include "predictor/sha256.hpp"

namespace tpb {
namespace {

namespace fs = std::filesystem;

const Grid kFormGrid{{1, 2}, {1, 4}, {256}};

constexpr const char* kCsv =
    "k,batch,context,t_step_us\n"
    "2,4,256,700.5\n"
    "1,1,256,1000\n"
    "\n"
    "1,4,256,1300.25\r\n"
    "2,1,256,600\n";

constexpr const char* kCsvWithTerms =
    "k, batch, context, t_step_us, compute_us, collective_us, host_us\n"
    "1,1,256,1000,990,0,10\n"
    "1,4,256,1300,1290,0,10\n"
    "2,1,256,600,500,90,10\n"
    "2,4,256,700,600,90,10\n";

constexpr const char* kJson = R"({"predictions": [
  {"k": 1, "batch": 1, "context": 256, "t_step_us": 1000},
  {"k": 1, "batch": 4, "context": 256, "t_step_us": 1300.25},
  {"k": 2, "batch": 1, "context": 256, "t_step_us": 600.0},
  {"k": 2, "batch": 4, "context": 256, "t_step_us": 700.5}
]})";

// The UsageError `parse` throws; fails the test when it throws none.
template <typename Parse>
std::string refusal(Parse parse) {
  try {
    parse();
  } catch (const UsageError& error) {
    return error.what();
  }
  ADD_FAILURE() << "accepted";
  return "";
}

std::string csv_refusal(const std::string& bytes) {
  return refusal([&] { parse_outside_form("mine", "dir/f.csv", bytes, kFormGrid); });
}

class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / fmt::format("tpb_outside_form_{}", getpid())) {
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path file = path_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file.string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(OutsideForm, CsvIsReadIntoGridOrder) {
  const OutsideForm form = parse_outside_form("mine", "dir/f.csv", kCsv, kFormGrid);
  EXPECT_EQ(form.name, "mine");
  EXPECT_EQ(form.source_name, "f.csv");
  EXPECT_EQ(form.bytes, kCsv);
  EXPECT_EQ(form.sha256, sha256_hex(kCsv));
  EXPECT_FALSE(form.has_terms);
  ASSERT_EQ(form.rows.size(), 4u);
  const double expected[] = {1000, 1300.25, 600, 700.5};  // k, batch, context order
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(form.rows[i].k, i < 2 ? 1 : 2);
    EXPECT_EQ(form.rows[i].batch, i % 2 == 0 ? 1 : 4);
    EXPECT_EQ(form.rows[i].t_step_us, expected[i]);
    EXPECT_FALSE(form.rows[i].terms);
  }
}

TEST(OutsideForm, JsonStatesTheSameRowsAsCsv) {
  const OutsideForm csv = parse_outside_form("mine", "f.csv", kCsv, kFormGrid);
  const OutsideForm json = parse_outside_form("mine", "f.json", kJson, kFormGrid);
  EXPECT_EQ(outside_forms_json({json})[0].at("rows"), outside_forms_json({csv})[0].at("rows"));
  EXPECT_NE(json.sha256, csv.sha256);
}

TEST(OutsideForm, TermColumnsAreKeptAndBecomeThePredictedShares) {
  const OutsideForm form = parse_outside_form("mine", "f.csv", kCsvWithTerms, kFormGrid);
  ASSERT_TRUE(form.has_terms);
  ASSERT_TRUE(form.rows[2].terms);
  EXPECT_EQ(form.rows[2].terms->collective_us, 90);
  const std::vector<CellPrediction> predictions = outside_form_predictions(form);
  EXPECT_EQ(predictions[2].form, "mine");
  EXPECT_EQ(predictions[2].prediction.t_step_us, 600);
  EXPECT_EQ(predictions[2].prediction.terms.compute_us, 500);
  // Without term columns the whole step is the compute share.
  const OutsideForm bare = parse_outside_form("bare", "f.json", kJson, kFormGrid);
  EXPECT_EQ(outside_form_predictions(bare)[2].prediction.terms.compute_us, 600);
  EXPECT_EQ(outside_form_predictions(bare)[2].prediction.terms.collective_us, 0);
}

TEST(OutsideForm, EachBadRowIsRefusedNamingTheValueAndTheLine) {
  const std::string header = "k,batch,context,t_step_us\n";
  const std::string three = "1,1,256,1000\n1,4,256,1300\n2,1,256,600\n";
  const struct {
    std::string bytes, named;
  } cases[] = {
      {header + three, "dir/f.csv: no prediction for cell k=2,batch=4,context=256"},
      {header + three + "2,4,256,700\n4,1,256,5\n", "dir/f.csv:6: cell k=4,batch=1,context=256 is not in the grid"},
      {header + three + "2,4,256,700\n1,1,256,5\n", "dir/f.csv:6: cell k=1,batch=1,context=256 is given twice"},
      {header + three + "2,4,256,nan\n", "dir/f.csv:5: t_step_us 'nan'"},
      {header + three + "2,4,256,inf\n", "dir/f.csv:5: t_step_us 'inf'"},
      {header + three + "2,4,256,-700\n", "dir/f.csv:5: t_step_us '-700'"},
      {header + three + "2,4,256,0\n", "dir/f.csv:5: t_step_us '0'"},
      {header + three + "2,4,256,7e\n", "dir/f.csv:5: t_step_us '7e' is not a number"},
      {header + three + "2,x,256,700\n", "dir/f.csv:5: batch: invalid value 'x'"},
      {header + three + "2,4,256\n", "dir/f.csv:5: 3 fields"},
      {"k,batch,context,t_step_us,latency_us\n", "dir/f.csv:1: column 'latency_us'"},
      {"k,batch,context,t_step_us,compute_us\n", "all three or none"},
      {"k,batch,context\n", "all three or none"},
      {"1,1,256,1000\n", "dir/f.csv:1: column '1'"},
      {"k,batch,context,t_step_us,compute_us,collective_us,host_us\n1,1,256,1000,nan,0,0\n",
       "dir/f.csv:2: compute_us 'nan'"},
      {"k,batch,context,t_step_us,compute_us,collective_us,host_us\n1,1,256,1000,10,0,-1\n",
       "dir/f.csv:2: host_us '-1'"},
      {"", "dir/f.csv: the file is empty"},
      {" \n\n", "dir/f.csv: the file is empty"},
      {R"({"predictions": [)", "dir/f.csv: not valid JSON"},
      {R"({"predictions": [], "meta": 1})", "unknown key 'meta'"},
      {R"({"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": 5, "latency": 2}]})",
       "predictions[0]: unknown key 'latency'"},
      {R"({"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": 0}]})",
       "predictions[0]: t_step_us '0'"},
      {R"({"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": -3.5}]})",
       "predictions[0]: t_step_us '-3.5'"},
      {R"({"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": "5"}]})",
       "predictions[0]: t_step_us \"5\" is not a number"},
      {R"({"predictions": [{"k": 1.5, "batch": 1, "context": 256, "t_step_us": 5}]})",
       "predictions[0]: k 1.5 is not a whole number"},
      {R"({"predictions": [{"k": 1, "batch": 1, "context": 256, "t_step_us": 5, "host_us": 1}]})",
       "predictions[0]: the terms compute_us, collective_us, host_us come all three or none"},
      {R"({"predictions": [{"k": 1, "batch": 1, "t_step_us": 5}]})", "predictions[0]: no 'context'"},
      {R"({"predictions": [{"k": 8, "batch": 1, "context": 256, "t_step_us": 5}]})",
       "predictions[0]: cell k=8,batch=1,context=256 is not in the grid"},
  };
  for (const auto& c : cases) {
    const std::string message = csv_refusal(c.bytes);
    EXPECT_NE(message.find(c.named), std::string::npos) << "input:\n" << c.bytes << "\nmessage: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(OutsideForm, NamesThatAreTakenOrMalformedAreRefused) {
  TempDir dir;
  const std::string file = dir.write("f.csv", kCsv);
  std::vector<std::string> taken;
  for (const ModelForm& form : registered_forms(true, true)) taken.emplace_back(form.name);
  taken.insert(taken.end(), {"transfer", "roofline", "aa"});
  for (const std::string& name : taken) {
    const std::string message = refusal([&] { read_outside_form(name + "=" + file, kFormGrid); });
    EXPECT_NE(message.find(fmt::format("--form {}={}: NAME '{}' is taken", name, file, name)), std::string::npos)
        << message;
  }
  for (const std::string name : {"Mine", "my-form", "my form", "é"}) {
    const std::string message = refusal([&] { read_outside_form(name + "=" + file, kFormGrid); });
    EXPECT_NE(message.find(fmt::format("NAME '{}' is not lower-case letters", name)), std::string::npos) << message;
  }
  EXPECT_NE(refusal([&] { read_outside_form("=" + file, kFormGrid); }).find("NAME is empty"), std::string::npos);
  EXPECT_NE(refusal([&] { read_outside_form(file, kFormGrid); }).find("expected NAME=FILE"), std::string::npos);
  const std::string twice = refusal([&] { read_outside_forms({"mine=" + file, "mine=" + file}, kFormGrid); });
  EXPECT_NE(twice.find("NAME 'mine' is given twice"), std::string::npos) << twice;
  EXPECT_EQ(read_outside_forms({"mine=" + file, "yours=" + file}, kFormGrid).size(), 2u);
}

TEST(OutsideForm, FilesThatCannotBeAFormAreRefused) {
  TempDir dir;
  const std::string missing = dir.path() + "/missing.csv";
  EXPECT_NE(refusal([&] { read_outside_form("mine=" + missing, kFormGrid); })
                .find(fmt::format("--form mine={}: cannot read '{}'", missing, missing)),
            std::string::npos);
  EXPECT_NE(refusal([&] { read_outside_form("mine=" + dir.path(), kFormGrid); }).find("is a directory"),
            std::string::npos);
  EXPECT_NE(refusal([&] { read_outside_form("mine=", kFormGrid); }).find("no FILE"), std::string::npos);
  const std::string empty = dir.write("empty.csv", "");
  EXPECT_NE(refusal([&] { read_outside_form("mine=" + empty, kFormGrid); }).find("empty.csv: the file is empty"),
            std::string::npos);
  // Blank lines pad a good file to exactly 1 MiB, read; one byte more is refused.
  std::string padded = kCsv;
  padded.resize(kMaxOutsideFormBytes, '\n');
  EXPECT_EQ(read_outside_form("mine=" + dir.write("full.csv", padded), kFormGrid).rows.size(), 4u);
  const std::string over = dir.write("over.csv", padded + "\n");
  EXPECT_NE(refusal([&] { read_outside_form("mine=" + over, kFormGrid); }).find("larger than 1 MiB"),
            std::string::npos);
  // FILE edited after it was read changes nothing read from it.
  const std::string file = dir.write("f.csv", kCsv);
  const OutsideForm form = read_outside_form("mine=" + file, kFormGrid);
  dir.write("f.csv", kCsvWithTerms);
  EXPECT_EQ(form.bytes, kCsv);
  EXPECT_EQ(form.sha256, sha256_hex(kCsv));
}

Registration registration_with_forms() {
  Registration r;
  r.registered_at = "2026-12-05T18:00:00.000001Z";
  r.tool_version = "0.1.0";
  r.workload = {"tiny", "configs/tiny.json", std::string(64, 'a'), 2, 64, 256, 4, "cpu", 2, 10, 7, 1000};
  r.grid = kFormGrid;
  r.kill_switches = kill_switch_table(15);
  r.falsification_rule = decision_rule_text(DecisionRule{});
  r.source = {"out/study.h5", {"/step_nocomm/k1/b1_c256/t_step_us"}, std::string(64, 'b')};
  // One cell of built-in predictions beside the outside ones: each form's seal checks its own.
  r.calibration = {{1, 256, 256, 1024, {.k = 1, .t_compute1_us = 1000, .t_host_us = 30, .t_replay_us = 1000}}};
  r.predictions = predict_all(r.calibration);
  r.outside_forms = {parse_outside_form("termed", "termed.csv", kCsvWithTerms, r.grid),
                     parse_outside_form("bare", "bare.json", kJson, r.grid)};
  for (const OutsideForm& form : r.outside_forms)
    for (const CellPrediction& p : outside_form_predictions(form)) r.predictions.push_back(p);
  return r;
}

TEST(OutsideForm, RegistrationRoundTripKeepsBothForms) {
  const Registration r = registration_with_forms();
  const std::string text = registration_json(r);
  const Registration back = parse_registration(text);
  EXPECT_EQ(registration_json(back), text);
  ASSERT_EQ(back.outside_forms.size(), 2u);
  EXPECT_EQ(back.outside_forms[0].bytes, kCsvWithTerms);
  EXPECT_EQ(back.outside_forms[1].source_name, "bare.json");
  EXPECT_EQ(find_prediction(back.predictions, "termed", 2, 1, 256).prediction.terms.collective_us, 90);
  EXPECT_EQ(find_prediction(back.predictions, "bare", 1, 4, 256).prediction.t_step_us, 1300.25);
}

// `text` with `from` replaced once by `to`; fails the test when `from` is not there.
std::string edited_text(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(OutsideForm, AnEditToTheSealedCopyIsRefusedNamingTheForm) {
  const Registration r = registration_with_forms();
  const std::string text = registration_json(r);
  // The bytes edited, their sha256 kept.
  const std::string bytes_edited = edited_text(text, "2,1,256,600,500,90,10", "2,1,256,60,500,90,10");
  const std::string hashed = refusal([&] { parse_registration(bytes_edited); });
  EXPECT_NE(hashed.find("sealed outside form 'termed': its bytes hash to"), std::string::npos) << hashed;
  // The bytes and their sha256 edited together, the rows left: the bytes' rows are not the sealed rows.
  Registration rehashed = r;
  rehashed.outside_forms[0].bytes = edited_text(kCsvWithTerms, "2,1,256,600,", "2,1,256,60,");
  rehashed.outside_forms[0].sha256 = sha256_hex(rehashed.outside_forms[0].bytes);
  const std::string rows = refusal([&] { parse_registration(registration_json(rehashed)); });
  EXPECT_NE(rows.find("sealed outside form 'termed': its rows are not the rows of its sealed bytes"),
            std::string::npos)
      << rows;
  // A prediction of the form edited, the form left.
  Registration predicted = r;
  for (CellPrediction& p : predicted.predictions)
    if (p.form == "bare" && p.k == 2 && p.batch == 4) p.prediction.t_step_us = 1;
  const std::string prediction = refusal([&] { parse_registration(registration_json(predicted)); });
  EXPECT_NE(prediction.find("the predictions of outside form 'bare' are not the rows"), std::string::npos)
      << prediction;
  // A sealed form renamed to a built-in one.
  const std::string renamed =
      refusal([&] { parse_registration(edited_text(text, "\"name\": \"bare\"", "\"name\": \"ideal\"")); });
  EXPECT_NE(renamed.find("NAME 'ideal' is taken"), std::string::npos) << renamed;
}

TEST(OutsideForm, ACampaignSealsItsFormsAndComparesThemByDigest) {
  CampaignDesign design;
  design.launches = 2;
  design.grid = kFormGrid;
  design.outside_forms = {parse_outside_form("bare", "bare.json", kJson, kFormGrid)};
  const std::string text = campaign_design_json(design);
  const CampaignDesign back = parse_campaign_design(text);
  EXPECT_EQ(campaign_design_json(back), text);
  ASSERT_EQ(back.outside_forms.size(), 1u);
  EXPECT_EQ(back.outside_forms[0].bytes, kJson);
  EXPECT_EQ(campaign_design_difference(back, design), "");
  CampaignDesign other = design;
  other.outside_forms = {parse_outside_form("bare", "bare.csv", kCsv, kFormGrid)};
  EXPECT_EQ(campaign_design_difference(design, other),
            fmt::format("--form: bare={} differs from the campaign's sealed bare={}", sha256_hex(kCsv),
                        sha256_hex(kJson)));
  other.outside_forms.clear();
  EXPECT_NE(campaign_design_difference(design, other).find("--form: none differs"), std::string::npos);
  const std::string edited = refusal([&] { parse_campaign_design(edited_text(text, "700.5", "7.5")); });
  EXPECT_NE(edited.find("campaign.json: sealed outside form 'bare': its bytes hash to"), std::string::npos) << edited;
}

}  // namespace
}  // namespace tpb
