// The stack trainer's binding (learning engines): engine.createStackTrainer() in
// web/lib/stack-trainer.mjs holds a StackTrainer handle and frees it with delete(). Specs and
// examples arrive type-checked, with defaults applied and names turned into the core's codes; the
// core checks values. Convert, call, copy out.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attention/stack_trainer.hpp"
#include "errors.hpp"
#include "trace.hpp"

using emscripten::val;

namespace {

using attn_bindings::error_of;

template <typename T>
val copy_out(const char* type, const std::vector<T>& values) {
  return val::global(type).new_(emscripten::typed_memory_view(values.size(), values.data()));
}

template <typename T>
std::vector<T> numbers(const val& array) {
  return array.isNull() || array.isUndefined() ? std::vector<T>{} : emscripten::convertJSArrayToNumberVector<T>(array);
}

attn::StackModel read_model(const val& model) {
  attn::StackModel m;
  m.vocab = model["vocab"].as<int>();
  m.d_model = model["dModel"].as<int>();
  m.layers = model["layers"].as<int>();
  m.heads = model["heads"].as<int>();
  m.d_k = model["dK"].as<int>();
  m.mlp = model["mlp"].as<bool>();
  m.arrangement = static_cast<attn::Arrangement>(model["arrangementCode"].as<int>());
  m.norm = static_cast<attn::NormKind>(model["normCode"].as<int>());
  m.swiglu = model["swiglu"].as<bool>();
  m.activation = static_cast<attn::Activation>(model["activationCode"].as<int>());
  m.mlp_hidden = model["mlpHidden"].as<int>();
  m.positions = static_cast<attn::PositionKind>(model["positionsCode"].as<int>());
  m.max_positions = model["maxPositions"].as<int>();
  m.causal = model["causal"].as<bool>();
  m.tied = model["tied"].as<bool>();
  return m;
}

attn::OptimizerSettings read_optimizer(const val& optimizer) {
  attn::OptimizerSettings o;
  o.kind = static_cast<attn::OptimizerKind>(optimizer["kindCode"].as<int>());
  o.learning_rate = optimizer["learningRate"].as<double>();
  o.momentum = optimizer["momentum"].as<double>();
  o.beta1 = optimizer["beta1"].as<double>();
  o.beta2 = optimizer["beta2"].as<double>();
  o.epsilon = optimizer["epsilon"].as<double>();
  o.weight_decay = optimizer["weightDecay"].as<double>();
  o.clip_norm = optimizer["clipNorm"].as<double>();
  o.batch_size = optimizer["batchSize"].as<int>();
  return o;
}

std::vector<attn::StackExample> read_examples(const val& examples) {
  std::vector<attn::StackExample> list(examples["length"].as<unsigned>());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const val e = examples[i];
    attn::StackExample& example = list[i];
    example.ids = numbers<int>(e["ids"]);
    example.first = e["first"].as<int>();
    example.query = e["query"].as<int>();
    example.target = e["target"].as<int>();
    example.target_output = numbers<float>(e["targetOutput"]);
  }
  return list;
}

// [[layer, head], …] as the JavaScript side checked them (whole numbers; the core checks ranges)
std::vector<attn::StackHead> read_heads(const val& ablate) {
  std::vector<attn::StackHead> heads(ablate["length"].as<unsigned>());
  for (std::size_t i = 0; i < heads.size(); ++i) {
    heads[i].layer = ablate[i][0].as<int>();
    heads[i].head = ablate[i][1].as<int>();
  }
  return heads;
}

// A stack trainer living in WebAssembly memory; JavaScript holds the handle and frees it with delete().
class StackTrainerHandle {
 public:
  val init(const val& spec) {
    attn::StackTrainerSpec s;
    s.model = read_model(spec["model"]);
    const val loss = spec["loss"];
    s.loss.kind = static_cast<attn::StackLossKind>(loss["kindCode"].as<int>());
    s.loss.layer = loss["layer"].as<int>();
    s.loss.head = loss["headIndex"].as<int>();
    s.optimizer = read_optimizer(spec["optimizer"]);
    s.seed = static_cast<std::uint64_t>(spec["seed"].as<double>());
    const val train = spec["train"];
    for (unsigned i = 0; i < train["length"].as<unsigned>(); ++i) s.train.push_back(train[i].as<std::string>());
    const attn::Status status = attn::StackTrainer::create(s, &trainer_);
    return status.ok() ? val::null() : error_of(status);
  }

  val set_data(const val& examples) {
    const attn::Status status = trainer_->set_data(read_examples(examples));
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

  val evaluate(const val& examples, const val& ablate) {
    attn::StackEvaluation evaluation;
    const attn::Status status = trainer_->evaluate(read_examples(examples), &evaluation, read_heads(ablate));
    if (!status.ok()) return error_of(status);
    val out = val::object();
    out.set("loss", evaluation.loss);
    out.set("accuracy", evaluation.accuracy);
    return out;
  }

  // The mean loss over the examples and each parameter's gradient, by name.
  val gradients(const val& examples) {
    double loss = 0;
    std::vector<std::vector<float>> gradients;
    const attn::Status status = trainer_->loss_and_gradients(read_examples(examples), &loss, &gradients);
    if (!status.ok()) return error_of(status);
    val by_name = val::object();
    const std::vector<std::string> names = trainer_->parameter_names();
    for (std::size_t i = 0; i < names.size(); ++i) by_name.set(names[i], copy_out("Float32Array", gradients[i]));
    val out = val::object();
    out.set("loss", loss);
    out.set("gradients", by_name);
    return out;
  }

  val trace(const val& examples, const val& ablate) {
    attn::StackTrace trace;
    const attn::Status status = trainer_->trace(read_examples(examples)[0], &trace, read_heads(ablate));
    return status.ok() ? attn_bindings::stack_trace_out(trace, true) : error_of(status);
  }

  val weights() const {
    val out = val::object();
    for (const std::string& name : trainer_->parameter_names())
      out.set(name, copy_out("Float32Array", *trainer_->parameter(name)));
    return out;
  }

  // names[i] gets values[i], each checked before any is set.
  val set_weights(const val& names, const val& values) {
    const unsigned count = names["length"].as<unsigned>();
    std::vector<std::vector<float>> copies(count);
    for (unsigned i = 0; i < count; ++i) {
      copies[i] = emscripten::convertJSArrayToNumberVector<float>(values[i]);
      const std::string name = names[i].as<std::string>();
      const std::vector<float>* now = trainer_->parameter(name);
      if (now == nullptr) return error_of(attn::Status::Range(name, name + " is not a parameter of this model"));
      if (now->size() != copies[i].size()) {
        return error_of(attn::Status::Range(name, name + " has " + std::to_string(copies[i].size()) +
                                                      " values; expected " + std::to_string(now->size())));
      }
      for (float value : copies[i]) {
        if (!std::isfinite(value)) {
          return error_of(attn::Status::Range(name, name + " holds a value that is not a finite number"));
        }
      }
    }
    for (unsigned i = 0; i < count; ++i) {
      const attn::Status status = trainer_->set_parameter(names[i].as<std::string>(), attn::View<float>(copies[i]));
      if (!status.ok()) return error_of(status);  // checked above: not reached
    }
    return val::null();
  }

  int steps() const { return trainer_->steps_taken(); }

 private:
  std::unique_ptr<attn::StackTrainer> trainer_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attention_lab_stack_trainer) {
  emscripten::class_<StackTrainerHandle>("StackTrainer")
      .constructor<>()
      .function("init", &StackTrainerHandle::init)
      .function("setData", &StackTrainerHandle::set_data)
      .function("step", &StackTrainerHandle::step)
      .function("evaluate", &StackTrainerHandle::evaluate)
      .function("gradients", &StackTrainerHandle::gradients)
      .function("trace", &StackTrainerHandle::trace)
      .function("weights", &StackTrainerHandle::weights)
      .function("setWeights", &StackTrainerHandle::set_weights)
      .function("steps", &StackTrainerHandle::steps);
}
