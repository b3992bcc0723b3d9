#pragma once
// What the engine tests share: inputs from a fixture file, how far an output is from eager's, and
// a whole run of a fixture compared with eager's outputs.
#include <QtTest>
#include <cmath>
#include <string>
#include <vector>

#include "../program/FixtureZoo.h"
#include "exec/AtenBackend.h"
#include "exec/Session.h"
#include "formats/Safetensors.h"
#include "program/TensorValues.h"

namespace torchir::test {

/// `input_0`, `input_1`, ... of a safetensors file, in order.
inline std::vector<TensorData> inputsOf(const std::string& path) {
  const TensorMap m = readSafetensors(path);
  std::vector<TensorData> out;
  for (std::size_t i = 0; m.count("input_" + std::to_string(i)); ++i) out.push_back(m.at("input_" + std::to_string(i)));
  return out;
}

/// max |a - b| / max(1, max |b|): 0 when bit-identical; NaN matches NaN, infinities match themselves.
inline double relativeError(const TensorData& a, const TensorData& b) {
  if (a.sizes != b.sizes || a.dtype != b.dtype) return INFINITY;
  double worst = 0, scale = 1;
  for (int64_t i = 0; i < b.numel(); ++i) scale = std::max(scale, std::abs(elementAsDouble(b, i)));
  for (int64_t i = 0; i < b.numel(); ++i) {
    const double x = elementAsDouble(a, i), y = elementAsDouble(b, i);
    if ((std::isnan(x) && std::isnan(y)) || x == y) continue;
    worst = std::max(worst, std::abs(x - y));
  }
  return worst / scale;
}

/// A finished run's outputs against the outputs file (eager's), bit for bit: empty when equal, else
/// the first difference.
inline std::string outputsMismatch(const Session& s, const std::string& outputsPath) {
  const auto outputs = s.outputs();
  const TensorMap expected = readSafetensors(outputsPath);
  if (outputs.size() != expected.size())
    return std::to_string(outputs.size()) + " outputs, eager made " + std::to_string(expected.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const double err = relativeError(outputs[i], expected.at("output_" + std::to_string(i)));
    if (err != 0)
      return outputsPath + ": output " + std::to_string(i) + " differs by " + QByteArray::number(err, 'g', 3).toStdString();
  }
  return "";
}

/// Runs the session on the inputs file to the end and compares every output with the outputs file
/// (eager's): bit for bit, since the references were made with one thread and the engine, at one
/// thread, runs the same kernels.
inline void runAndCompare(Session& s, const std::string& inputsPath, const std::string& outputsPath) {
  atenBackend().setThreads(1);
  const Diagnosis in = s.setInputs(inputsOf(inputsPath));
  QVERIFY2(in.ok(), in.message.c_str());
  const StepOutcome o = s.run();
  QVERIFY2(o.reason == StopReason::Finished, (o.diagnosis.nodeName + ": " + o.diagnosis.message).c_str());
  const std::string mismatch = outputsMismatch(s, outputsPath);
  QVERIFY2(mismatch.empty(), mismatch.c_str());
}

/// The same for fixture `name`'s program `p`, on its `.inputs` and `.outputs` files.
inline void runAndCompare(const Program& p, const std::string& name) {
  auto s = atenBackend().createSession(p);
  runAndCompare(*s, fixturePath(name, ".inputs.safetensors"), fixturePath(name, ".outputs.safetensors"));
}

}  // namespace torchir::test
