import { STOPWORDS } from "../src/domains/graph/model.ts";
console.log(STOPWORDS.size);
