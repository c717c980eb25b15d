declare module "swagger-ui-dist/absolute-path.js" {
  /** The folder holding Swagger UI's static assets. */
  const getAbsoluteFSPath: () => string;
  export default getAbsoluteFSPath;
}
