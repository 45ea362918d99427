// The trainer's binding: engine.createTrainer() in web/lib/trainer.mjs holds a Trainer handle and
// frees it with delete(). Specs and examples arrive type-checked and with defaults applied; the
// core checks values. Convert, call, copy out.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/trainer.hpp"
#include "errors.hpp"

using emscripten::val;

namespace {

template <typename T>
val copy_out(const char* type, const std::vector<T>& values) {
  return val::global(type).new_(emscripten::typed_memory_view(values.size(), values.data()));
}

using attn_bindings::error_of;

template <typename T>
std::vector<T> numbers(const val& array) {
  return array.isNull() || array.isUndefined() ? std::vector<T>{} : emscripten::convertJSArrayToNumberVector<T>(array);
}

// A trainer living in WebAssembly memory; JavaScript holds the handle and frees it with delete().
// Specs and examples arrive already type-checked and with defaults applied by attention.mjs.
class TrainerHandle {
 public:
  val init(const val& spec) {
    attn::TrainerSpec s;
    const val model = spec["model"];
    s.model.d_model = model["dModel"].as<int>();
    s.model.heads = model["heads"].as<int>();
    s.model.d_k = model["dK"].as<int>();
    s.model.d_v = model["dV"].as<int>();
    s.model.output_projection = model["outputProjection"].as<bool>();
    s.model.biases = model["biases"].as<bool>();
    s.model.positions = static_cast<attn::PositionMode>(model["positionsMode"].as<int>());
    s.model.scale_mode = static_cast<attn::ScaleMode>(model["scaleMode"].as<int>());
    s.model.scale_divisor = model["scaleDivisor"].as<double>();
    s.model.mask_mode = static_cast<attn::MaskMode>(model["maskMode"].as<int>());
    s.model.vocabulary = model["vocabulary"].as<int>();
    const val loss = spec["loss"];
    s.loss.kind = static_cast<attn::LossKind>(loss["kindCode"].as<int>());
    s.loss.head = loss["headIndex"].as<int>();
    s.loss.classes = loss["classes"].as<int>();
    const val optimizer = spec["optimizer"];
    s.optimizer.kind = static_cast<attn::OptimizerKind>(optimizer["kindCode"].as<int>());
    s.optimizer.learning_rate = optimizer["learningRate"].as<double>();
    s.optimizer.momentum = optimizer["momentum"].as<double>();
    s.optimizer.beta1 = optimizer["beta1"].as<double>();
    s.optimizer.beta2 = optimizer["beta2"].as<double>();
    s.optimizer.epsilon = optimizer["epsilon"].as<double>();
    s.optimizer.weight_decay = optimizer["weightDecay"].as<double>();
    s.optimizer.clip_norm = optimizer["clipNorm"].as<double>();
    s.optimizer.batch_size = optimizer["batchSize"].as<int>();
    s.seed = static_cast<std::uint64_t>(spec["seed"].as<double>());
    const val train = spec["train"];
    for (unsigned i = 0; i < train["length"].as<unsigned>(); ++i) s.train.push_back(train[i].as<std::string>());
    const attn::Status status = attn::Trainer::create(s, &trainer_);
    return status.ok() ? val::null() : error_of(status);
  }

  val set_data(const val& examples) {
    std::vector<attn::Example> list = read_examples(examples);
    const attn::Status status = trainer_->set_data(std::move(list));
    return status.ok() ? val::null() : error_of(status);
  }

  val step(int steps) {
    attn::StepReport report;
    const attn::Status status = trainer_->step(steps, &report);
    val out = status.ok() ? val::object() : error_of(status);
    out.set("losses", copy_out("Float64Array", report.losses));
    out.set("gradientNorms", copy_out("Float64Array", report.gradient_norms));
    out.set("steps", trainer_->steps_taken());
    return out;
  }

  val evaluate(const val& examples) {
    attn::Evaluation evaluation;
    const attn::Status status = trainer_->evaluate(read_examples(examples), &evaluation);
    if (!status.ok()) return error_of(status);
    val out = val::object();
    out.set("loss", evaluation.loss);
    out.set("accuracy", evaluation.accuracy);
    return out;
  }

  val weights() const {
    val out = val::object();
    for (const std::string& name : trainer_->parameter_names())
      out.set(name, copy_out("Float32Array", *trainer_->parameter(name)));
    return out;
  }

  // names[i] gets values[i]; all or none.
  val set_weights(const val& names, const val& values) {
    const unsigned count = names["length"].as<unsigned>();
    std::vector<std::vector<float>> copies(count);
    std::vector<std::pair<std::string, attn::View<float>>> list;
    for (unsigned i = 0; i < count; ++i) {
      copies[i] = emscripten::convertJSArrayToNumberVector<float>(values[i]);
      list.emplace_back(names[i].as<std::string>(), attn::View<float>(copies[i]));
    }
    const attn::Status status = trainer_->set_parameters(list);
    return status.ok() ? val::null() : error_of(status);
  }

  int steps() const { return trainer_->steps_taken(); }

 private:
  static std::vector<attn::Example> read_examples(const val& examples) {
    std::vector<attn::Example> list(examples["length"].as<unsigned>());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const val e = examples[i];
      attn::Example& example = list[i];
      example.n = e["n"].as<int>();
      example.x = numbers<float>(e["x"]);
      example.tokens = numbers<int>(e["tokens"]);
      example.query = e["query"].as<int>();
      example.target = e["target"].as<int>();
      example.head = e["head"].as<int>();
      example.target_output = numbers<float>(e["targetOutput"]);
    }
    return list;
  }

  std::unique_ptr<attn::Trainer> trainer_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab_trainer) {
  emscripten::class_<TrainerHandle>("Trainer")
      .constructor<>()
      .function("init", &TrainerHandle::init)
      .function("setData", &TrainerHandle::set_data)
      .function("step", &TrainerHandle::step)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("weights", &TrainerHandle::weights)
      .function("setWeights", &TrainerHandle::set_weights)
      .function("steps", &TrainerHandle::steps);
}
