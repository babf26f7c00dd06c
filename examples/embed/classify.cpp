// classify RUN_DIR DATA: the class of every series of DATA (a .ts file, or
// any data the `plastic` command reads), one line per series:
//
//   <series id> <class name>
//
// with the model compiled into this program (plastic_add_model in
// CMakeLists.txt) and the parameters of a `plastic train` run folder. The
// series are prepared as training prepared its data (the run folder records
// how) and predicted by the same runtime as `plastic predict`.
#include <cstdio>

#include <plastic/plastic.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RUN_DIR DATA.ts\n", argv[0]);
    return 2;
  }
  auto fail = [](const plastic::embed::Error& e) {
    std::fprintf(stderr, "classify: %s\n", e.message.c_str());
    return e.exit_code;
  };

  auto model = plastic::embed::Model::linked();
  if (!model) return fail(model.error());
  if (auto loaded = model->load_parameters(argv[1]); !loaded) return fail(loaded.error());

  auto series = plastic::embed::read_series(argv[2]);
  if (!series) return fail(series.error());
  auto predictions = model->predict(series.value());
  if (!predictions) return fail(predictions.error());

  const std::vector<std::string>& classes = model->classes();
  for (const plastic::embed::Prediction& p : predictions.value()) {
    const int k = p.predicted_class();
    const bool named = k >= 0 && static_cast<size_t>(k) < classes.size();
    std::printf("%s %s\n", p.id.c_str(),
                named ? classes[static_cast<size_t>(k)].c_str() : std::to_string(k).c_str());
  }
  return 0;
}
