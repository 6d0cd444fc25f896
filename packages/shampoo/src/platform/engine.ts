/** The engine adapter lives in the kernel (kernel/src/store/engine.ts); SHAMPOO's modules import it from here. */
export { type Capabilities, type Engine, engineOf } from "kernel";
