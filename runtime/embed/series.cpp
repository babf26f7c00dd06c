// read_series (see plastic.h): the command line's data readers, asked for
// every series of a file, raw — open_data with no split and no
// normalisation, so that predict() prepares them as training did.
#include "runtime/embed/plastic.h"

#include "runtime/app/app_error.h"
#include "runtime/data/open_data.h"

namespace plastic::embed {

Result<std::vector<Series>, Error> read_series(const std::string& path) {
  rt::DataOptions o;
  o.whole = true;
  o.normalise = false;
  auto splits = rt::open_data(path, o);
  if (!splits) return Error{rt::kInputError, splits.error().describe()};
  std::vector<Series> out;
  for (const rt::Dataset* d :
       {&splits.value().train, &splits.value().validation, &splits.value().test})
    for (const rt::Sample& s : d->samples)
      out.push_back(Series{s.id, s.times, s.values, s.statics, s.label, s.target});
  return out;
}

} // namespace plastic::embed
