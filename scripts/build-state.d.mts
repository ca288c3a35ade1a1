// Types of build-state.mjs (plain JavaScript: `npm start` runs it before anything is compiled).
export declare const STAMP: string;
export declare function fingerprint(root: string): string;
export declare function staleReason(root: string): string | null;
export declare function beginBuild(root: string): void;
export declare function endBuild(root: string): void;
