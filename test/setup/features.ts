import { installFeatures } from "@/lib/server/features.ts";

// Every suite runs with the product's job kinds and run extensions plugged in, as the server and
// the worker entry do (lib/server/features.ts); tests that build a catalog of their own still can.
installFeatures();
