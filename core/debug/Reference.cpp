#include "Reference.h"

#include <filesystem>
#include <stdexcept>

#include "exec/AtenBackend.h"
#include "formats/CompanionFiles.h"
#include "formats/ProgramLoader.h"
#include "quant/QuantComparison.h"

namespace torchir {
namespace {

std::string fileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::shared_ptr<const Program> referenceProgram(const ReferenceSpec& spec, const std::shared_ptr<const Program>& a,
                                               const std::string& aPath, const std::string& aConstants) {
  if (spec.kind == ReferenceSpec::Kind::Shadow) return a;
  if (spec.program) return spec.program;
  if (spec.kind == ReferenceSpec::Kind::File)  // an IR JSON with its weights and constants beside it
    return std::make_shared<const Program>(loadProgram(spec.path, withCompanionFiles(spec.path, {})));
  return std::make_shared<const Program>(loadProgram(aPath, {spec.path, aConstants}));
}

std::string describe(const ReferenceSpec& spec) {
  std::string d = !spec.name.empty()                         ? spec.name
                  : spec.kind == ReferenceSpec::Kind::File    ? fileName(spec.path)
                  : spec.kind == ReferenceSpec::Kind::Weights ? "weights " + fileName(spec.path)
                                                              : std::string();
  if (spec.floatingAs != DType::Unknown) d += (d.empty() ? "" : " at ") + std::string(dtypeName(spec.floatingAs));
  if (spec.device != "cpu") d += (d.empty() ? "" : " on ") + spec.device;
  return d;
}

}  // namespace

std::unique_ptr<Reference> makeReference(const ReferenceSpec& spec, const std::shared_ptr<const Program>& a,
                                         const std::string& aPath, const std::string& aConstants,
                                         const RunInputs& inputs, Session& session) {
  auto r = std::make_unique<Reference>();
  r->program = referenceProgram(spec, a, aPath, aConstants);
  r->description = describe(spec);
  r->options = spec.options;
  const Program& b = *r->program;
  NodeMatching matching = &b == a.get() ? identityMatching(b) : matchNodes(*a, b);
  if (spec.requireTwins && !matching.twins())
    throw std::runtime_error(a->source.path + " and " + b.source.path + " are not two exports of one model: " +
                             std::to_string(matching.paired()) + " of " +
                             std::to_string(std::min(matching.opNodesA, matching.opNodesB)) + " op nodes pair");
  SessionOptions options;
  options.floatingAs = spec.floatingAs;
  options.device = spec.device;
  options.castWeightsToExport = spec.castWeights;
  if (spec.kind == ReferenceSpec::Kind::Shadow) options.autocast = spec.autocast;
  r->session = atenBackend().createSession(b, options);
  const Diagnosis in = giveInputs(*r->session, spec.inputs ? chooseInputs(b, *spec.inputs) : inputs);
  if (!in.ok()) throw std::runtime_error("the reference run's inputs: " + in.message);
  session.reset();
  r->run = std::make_unique<PairedRun>(session, *r->session, std::move(matching), r->options, quantComparison());
  return r;
}

}  // namespace torchir
