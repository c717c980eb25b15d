// `npm run lint:imports`: checks the import rules of .dependency-cruiser.cjs over the folders
// given as arguments and prints each violation, exiting 1 when one is an error.
// Runs dependency-cruiser through its API: its `depcruise` command refuses to start on Node 20
// (it asks for Node 22), while the API it wraps runs here.
import { cruise } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

const targets = process.argv.slice(2);
if (targets.length === 0) {
  console.error("usage: node scripts/lint-imports.mjs <folder or file>...");
  process.exit(2);
}
const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
const tsConfig = options.tsConfig?.fileName ? extractTSConfig(options.tsConfig.fileName) : undefined;
const { output, exitCode } = await cruise(targets, { ...options, outputType: "err" }, {}, { tsConfig });
process.stdout.write(output);
process.exitCode = exitCode === 0 ? 0 : 1;
