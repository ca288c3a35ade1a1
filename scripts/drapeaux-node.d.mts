// Types of drapeaux-node.mjs (plain JavaScript, beside scripts/start.mjs).
export declare function drapeauxNode(root: string): string[];
export declare function drapeauxAvant(ligne: string): string[] | null;
