#!/usr/bin/env node
import { launch } from "kernel/launch.mjs";

await launch(import.meta.url);
